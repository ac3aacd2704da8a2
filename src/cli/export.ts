/**
 * `capstate export FORMAT` (issue 47): the stored state, and the model's conventions, in the
 * formats of the tools people already use. Each export reads what the load stored; none
 * re-derives a rule.
 */
import { writeFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { stringifyExact } from '../json/exact.js';
import { readStoredState } from '../model/plan/stored.js';
import { pickCapture, readManifest } from '../manifest/read.js';
import { jsonServerDb } from '../export/json-server.js';
import { log, out } from './common.js';
import { sourceArgs, withCaptures } from './source.js';

const FORMATS = ['json-server'] as const;
type Format = (typeof FORMATS)[number];

export default defineCommand({
  meta: {
    name: 'export',
    description: "Write the stored state in another tool's format: json-server (a db.json that `npx json-server db.json` serves)",
  },
  args: {
    format: { type: 'positional', description: `What to write: ${FORMATS.join(', ')}`, required: true, valueHint: 'FORMAT' },
    ...sourceArgs,
    out: { type: 'string', alias: 'o', description: 'Write to FILE instead of stdout', valueHint: 'FILE' },
  },
  async run({ args: a, rawArgs }) {
    if (!(FORMATS as readonly string[]).includes(a.format))
      throw new CapstateError('usage', `unknown export format "${a.format}"; formats: ${FORMATS.join(', ')}`, {}, 2);
    const format = a.format as Format;
    await withCaptures(
      a,
      rawArgs,
      async (k, ids) => {
        const captureId = pickCapture(ids, a.db);
        const state = await readStoredState(k, captureId, a.db);
        const { db, left_out } = jsonServerDb(state, await readManifest(k, captureId));
        const text = `${stringifyExact(db, 2)}\n`;
        if (a.out) writeFileSync(a.out, text);
        else out(text.trimEnd());
        const keys = Object.keys(db);
        log(
          `${format}: ${keys.length} ${keys.length === 1 ? 'key' : 'keys'} (${keys.join(', ') || 'none'}), the state before the capture's first write` +
            (a.out ? `; wrote ${a.out}; serve it with: npx json-server ${a.out}` : ''),
        );
        for (const l of left_out) log(`left out: ${l}`);
      },
      { one: true, state: true },
    );
  },
});
