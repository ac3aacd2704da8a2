import { defineCommand } from 'citty';
import { plainText } from '../model/plan/words.js';
import { closeServeContext } from '../model/served/context.js';
import { checkEffects } from '../model/served/effects.js';
import { jsonArg, out, printJson } from './common.js';
import { openSource, sourceArgs } from './source.js';
import type { AnswerKind } from '../model/served/provenance.js';

export const args = { ...sourceArgs, ...jsonArg } as const;

export default defineCommand({
  meta: {
    name: 'check-effects',
    description:
      "Replay the capture's recorded requests, in order, against a fresh served model and report for each recorded response whether the " +
      "model's answer equals it (server clocks and UUIDs compared by shape); which write tools take effect and which replay",
  },
  args,
  async run({ args: a, rawArgs }) {
    const { ctx, cleanup } = await openSource(a, rawArgs);
    try {
      const report = await checkEffects(ctx);
      const reproduced = report.checks.filter((c) => c.reproduced).length;
      const summary = `${reproduced} of ${report.checks.length} responses reproduced`;
      // How the model made each answer (issue 44: every answer says so).
      const answers: Record<AnswerKind, number> = { state: 0, convention: 0, replay: 0, declined: 0 };
      for (const c of report.checks) answers[c.answer]++;
      if (a.json) {
        return printJson({
          ok: true,
          capture: { id: ctx.captureId, path: ctx.manifest.capture_path },
          summary,
          reproduced,
          responses: report.checks.length,
          answers,
          write_tools: { verified: report.verified, replayed: report.replayed },
          checks: report.checks,
        });
      }
      const w = Math.max(0, ...report.checks.map((c) => c.request_line.length));
      const lines = report.checks.map(
        (c) =>
          `#${String(c.ordinal).padEnd(4)} ${c.request_line.padEnd(w)}  ${c.reproduced ? 'reproduced' : 'NOT reproduced'}` +
          `  (${c.source}, status ${c.answered_status}${c.recorded_status !== c.answered_status ? `, recorded ${c.recorded_status}` : ''})${c.detail ? ': ' + plainText(c.detail) : ''}`,
      );
      lines.push(
        '',
        `write tools that take effect: ${report.verified.length ? report.verified.map((v) => `${v.tool} (${v.effect})`).join(', ') : 'none'}`,
      );
      for (const r of report.replayed) lines.push(`replayed: ${r.tool} (${plainText(r.reason)})`);
      lines.push(
        `answers: ${answers.state} from state, ${answers.convention} by convention, ${answers.replay} replayed, ${answers.declined} declined`,
      );
      lines.push(summary);
      out(lines.join('\n'));
    } finally {
      await closeServeContext(ctx);
      cleanup();
    }
  },
});
