// An agent's session against a served capture, as an MCP client sees it (not part of capstate).
//
//   node examples/agent-session.mjs CAPTURE TOOL ARGS_JSON [TOOL ARGS_JSON …]
//
// starts `capstate serve CAPTURE` over stdio with the MCP SDK's client, calls each tool in
// turn and prints each call (→), what happened (←) and the answer's body, each shortened to a line.
// The README's agent session is this script's output (scripts/readme-examples.mjs runs it).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const WIDTH = 110;
const [capture, ...rest] = process.argv.slice(2);
if (!capture || rest.length % 2 !== 0) {
  process.stderr.write('usage: node examples/agent-session.mjs CAPTURE TOOL ARGS_JSON [TOOL ARGS_JSON …]\n');
  process.exit(2);
}
const calls = [];
for (let i = 0; i < rest.length; i += 2) {
  try {
    calls.push({ name: rest[i], args: JSON.parse(rest[i + 1]) });
  } catch {
    process.stderr.write(`agent-session: the arguments of ${rest[i]} are not JSON: ${rest[i + 1]}\n`);
    process.exit(2);
  }
}

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src', 'cli', 'main.js');
const client = new Client({ name: 'capstate-agent-session', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', capture], stderr: 'ignore' }));
const short = (s) => (s.length > WIDTH ? `${s.slice(0, WIDTH - 1)}…` : s);
try {
  const { tools } = await client.listTools();
  console.log(`(${tools.length} tools listed)`);
  for (const { name, args } of calls) {
    console.log(short(`→ ${name} ${JSON.stringify(args)}`));
    const r = await client.callTool({ name, arguments: args });
    // The first text is what happened, the next (if any) the answer's body.
    const [head, ...more] = /** @type {{ type: string, text: string }[]} */ (r.content)
      .filter((c) => c.type === 'text')
      .map((c) => c.text.split('\n')[0]);
    console.log(short(`← ${r.isError ? 'error: ' : ''}${head}`));
    for (const line of more) console.log(short(`  ${line}`));
  }
} finally {
  await client.close();
}
