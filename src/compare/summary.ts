/** The one-screen text summary of a comparison: what changed, what could not be compared. */
import type { ArtifactResult, ComparisonResult, StepResult } from './compare.js';

const name = (s: StepResult) => (s.step_id === null ? '(initial state)' : s.step_id);

/** At most `maxLines` lines of step detail; the rest is counted. */
export function summarize(r: ComparisonResult, maxLines = 18): string {
  const lines: string[] = [];
  const c = r.counts;
  lines.push(
    `${r.verdict.toUpperCase()}: ${c.changed} changed, ${c.unchanged} unchanged, ${c.unknown} unknown step(s) — ${r.before.source} → ${r.after.source}`,
  );
  lines.push(
    `normalization sha256 ${r.normalization.sha256} (${r.normalization.built_in.length} built-in rules, ${r.normalization.rules.length} caller rule(s))`,
  );
  for (const f of r.alignment_failures) lines.push(`alignment failure (${f.code}): ${f.message}`);
  const detail: string[] = [];
  const describe = (x: ArtifactResult) => {
    if (x.kind === 'network' && (x.only_before || x.only_after)) {
      const hop = (h: { method: string | null; url: string | null; status: number | null }) =>
        `${h.method ?? '?'} ${h.url ?? '?'} → ${h.status ?? 'no response'}`;
      const moved = (h: { fingerprint: string }) => (x.moved_between_steps ?? []).some((m) => m.fingerprint === h.fingerprint);
      const paired = (h: { method: string | null; url: string | null; fingerprint: string }) =>
        moved(h) || (x.hop_changes ?? []).some((c) => c.method === h.method && c.url === h.url);
      return [
        ...(x.hop_changes ?? []).map(
          (c) => `      ~ ${c.method ?? '?'} ${c.url ?? '?'}: ${c.differences.join(', ') || 'redirect ancestry'}`,
        ),
        ...(x.only_before ?? []).filter((h) => !paired(h)).map((h) => `      - ${hop(h)}`),
        ...(x.only_after ?? []).filter((h) => !paired(h)).map((h) => `      + ${hop(h)}`),
        ...(x.moved_between_steps ?? []).map((h) => `      ↔ ${hop(h)} (same transaction, sent during another step)`),
      ];
    }
    return [];
  };
  for (const s of [...(r.initial_state ? [r.initial_state] : []), ...r.steps]) {
    const changed = s.artifacts.filter((x) => x.verdict === 'changed');
    const unknown = s.artifacts.filter((x) => x.verdict === 'unknown');
    if (s.verdict === 'unchanged') {
      detail.push(`  ${name(s)}: unchanged`);
      continue;
    }
    detail.push(`  ${name(s)}: ${s.verdict}${changed.length ? ` — changed: ${changed.map((x) => x.kind).join(', ')}` : ''}`);
    for (const x of changed) detail.push(...describe(x));
    // One line per reason, naming every artifact it holds back.
    const byReason = new Map<string, string[]>();
    for (const x of unknown) {
      const recovery = x.recovery ?? '';
      const k = `${x.reason}; ${recovery}`;
      byReason.set(k, [...(byReason.get(k) ?? []), x.kind]);
    }
    for (const [why, kinds] of byReason) detail.push(`    could not compare ${kinds.join(', ')}: ${why}`);
  }
  if (detail.length > maxLines) {
    lines.push(...detail.slice(0, maxLines), `  … ${detail.length - maxLines} more line(s): add --json for the whole result`);
  } else lines.push(...detail);
  return lines.join('\n');
}
