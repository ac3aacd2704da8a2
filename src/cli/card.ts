import { defineCommand } from 'citty';
import { closeServeContext } from '../model/served/context.js';
import { buildCatalog, environmentCard } from '../serve/catalog.js';
import { jsonArg, out, printJson } from './common.js';
import { plainText } from '../model/plan/words.js';
import { openSource, sourceArgs } from './source.js';

export const args = { ...sourceArgs, ...jsonArg } as const;

export default defineCommand({
  meta: {
    name: 'card',
    description:
      'The environment card: per served tool its name, description and inputSchema, as `capstate serve` advertises them (without the MCP hints)',
  },
  args,
  async run({ args: a, rawArgs }) {
    const { ctx, cleanup } = await openSource(a, rawArgs);
    try {
      const card = environmentCard(ctx, await buildCatalog(ctx));
      if (a.json) return printJson(card);
      const tools = card.tools as { name: string; description: string }[];
      const lines = [`capture ${ctx.captureId}: ${ctx.manifest.capture_path}`, String(card.warning), `${tools.length} tools:`];
      // Issue 46: a description is one line; the warning above is the card's, said once.
      for (const t of tools) lines.push(`  ${t.name}`, `    ${t.description}`);
      for (const l of card.limitations as string[]) lines.push(`limitation: ${plainText(l)}`);
      out(lines.join('\n'));
    } finally {
      await closeServeContext(ctx);
      cleanup();
    }
  },
});
