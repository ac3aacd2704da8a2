/**
 * `capstate export FORMAT` (issue 47): the stored state, and the model's conventions, in the
 * formats of the tools people already use. Each export reads what the load stored; none
 * re-derives a rule.
 */
import { writeFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { stringifyExact, type JsonValue } from '../json/exact.js';
import { readStoredState } from '../model/plan/stored.js';
import { closeServeContext } from '../model/served/context.js';
import { pickCapture, readManifest } from '../manifest/read.js';
import { jsonServerDb } from '../export/json-server.js';
import { openApiOf } from '../export/openapi.js';
import { log, out } from './common.js';
import { openSource, sourceArgs, withCaptures } from './source.js';

const FORMATS = ['openapi', 'json-server'] as const;

export default defineCommand({
  meta: {
    name: 'export',
    description:
      "Write what the load inferred in another tool's format: openapi (OpenAPI 3.1 of the inferred API) or json-server (a db.json that `npx json-server db.json` serves)",
  },
  args: {
    format: { type: 'positional', description: `What to write: ${FORMATS.join(', ')}`, required: true, valueHint: 'FORMAT' },
    ...sourceArgs,
    out: { type: 'string', alias: 'o', description: 'Write to FILE instead of stdout', valueHint: 'FILE' },
  },
  async run({ args: a, rawArgs }) {
    const write = (doc: JsonValue, summary: string) => {
      const text = `${stringifyExact(doc, 2)}\n`;
      if (a.out) writeFileSync(a.out, text);
      else out(text.trimEnd());
      log(summary + (a.out ? `; wrote ${a.out}` : ''));
    };
    if (a.format === 'openapi') {
      const { ctx, cleanup } = await openSource(a, rawArgs);
      try {
        const doc = await openApiOf(ctx);
        const ops = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce((n, p) => n + Object.keys(p).length, 0);
        const schemas = Object.keys((doc.components as { schemas: object }).schemas).length;
        write(
          doc,
          `openapi: ${ops} ${ops === 1 ? 'operation' : 'operations'}, ${schemas} entity ${schemas === 1 ? 'schema' : 'schemas'}, from capture ${ctx.captureId}`,
        );
        for (const l of (doc['x-capstate-left-out'] ?? []) as { operation: string; why: string }[])
          log(`left out: ${l.operation} (${l.why})`);
      } finally {
        await closeServeContext(ctx);
        cleanup();
      }
      return;
    }
    if (a.format !== 'json-server')
      throw new CapstateError('usage', `unknown export format "${a.format}"; formats: ${FORMATS.join(', ')}`, {}, 2);
    await withCaptures(
      a,
      rawArgs,
      async (k, ids) => {
        const captureId = pickCapture(ids, a.db);
        const state = await readStoredState(k, captureId, a.db);
        const { db, left_out } = jsonServerDb(state, await readManifest(k, captureId));
        const keys = Object.keys(db);
        write(
          db,
          `json-server: ${keys.length} ${keys.length === 1 ? 'key' : 'keys'} (${keys.join(', ') || 'none'}), the state before the capture's first write` +
            (a.out ? `; serve it with: npx json-server ${a.out}` : ''),
        );
        for (const l of left_out) log(`left out: ${l}`);
      },
      { one: true, state: true },
    );
  },
});
