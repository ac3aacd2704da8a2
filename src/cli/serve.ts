import { defineCommand } from 'citty';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { closeServeContext } from '../serve/context.js';
import { createServer } from '../serve/server.js';
import { log } from './common.js';
import { openSource, sourceArgs } from './source.js';

export const args = { ...sourceArgs } as const;

export default defineCommand({
  meta: {
    name: 'serve',
    description: 'Serve a capture over MCP (stdio): one tool per manifest tool, answering reads from the environment state and the rest by replaying retained records, ' +
      'plus inspect_analysis_view, inspect_environment_manifest and query_store. Only protocol touches stdout.',
  },
  args,
  async run({ args: a, rawArgs }) {
    const { ctx, cleanup } = await openSource(a, rawArgs);
    try {
      const { server, catalog } = await createServer(ctx);
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        const done = () => resolve();
        // The client ends the session by closing our stdin; signals end it too.
        process.stdin.once('end', done);
        process.stdin.once('close', done);
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
        server.onclose = done;
      });
      await server.connect(transport);
      log(`serving capture ${ctx.captureId} (${ctx.manifest.capture_path}) over MCP stdio: ` +
        `${catalog.environmentTools.length} environment tools + ${catalog.tools.length - catalog.environmentTools.length} analysis tools, ` +
        `${catalog.bytes} of ${catalog.reserveBytes} catalog bytes${catalog.limitations.length ? '; ' + catalog.limitations.join('; ') : ''}`);
      await closed;
      await server.close();
    } finally {
      await closeServeContext(ctx);
      cleanup();
    }
  },
});
