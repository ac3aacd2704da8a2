/**
 * The report as one self-contained HTML page (issue 19): inline CSS and SVG, no script, no
 * font, no image and no link that leaves the file, and a Content-Security-Policy that
 * forbids fetching anything, so opening it makes no request. Every captured string (URLs,
 * tool names, entity values, documents) is someone else's text: it reaches the page only
 * through `esc`, in element text or double-quoted attributes.
 */
import { stringifyExact, type JsonValue } from '../json/exact.js';
import { boundSentence, planSentence, plainText } from '../model/plan/words.js';
import type { StateType } from '../model/plan/types.js';
import type { ReportData, TimelineMark } from './data.js';

/** HTML-escapes text for element content and double-quoted attribute values. */
export function esc(text: string): string {
  return (
    text
      .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
      // Control characters are not allowed in HTML text; show them as the replacement character.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd')
  );
}

const cut = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Rows of one type's entity table shown at most (the page must stay openable). */
export const MAX_ENTITY_ROWS = 1000;
/** Characters of one document shown at most. */
const MAX_DOCUMENT_CHARS = 20_000;

const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1d1d1f; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { margin: 20px 0 4px; } .meta { color: #555; } code, pre, td.v { font-family: ui-monospace, monospace; font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0; } th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f4f4f6; } td.v { max-width: 360px; overflow-wrap: anywhere; }
pre { background: #f7f7f9; padding: 8px; overflow: auto; max-height: 320px; }
.legend span { display: inline-block; margin-right: 16px; } .sw { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin-right: 4px; }
svg text { font: 11px system-ui, sans-serif; fill: #333; } .lane-bg { fill: #fafafa; } .window { fill: #d8f0dc; }
.mark { fill: #3b6fd8; } .mark.initial { fill: #1f8a3a; } .mark.write { fill: #d62f2f; } .bound { stroke: #d62f2f; stroke-width: 1.5; stroke-dasharray: 4 3; }
.bound-label { fill: #d62f2f; } .axis { stroke: #999; }
`;

interface Geometry {
  x: (m: TimelineMark) => number;
  width: number;
  axis: { x: number; label: string }[];
}

const LABEL_W = 280;
const PLOT_W = 860;
const LANE_H = 22;
const TOP = 34;

/** x by start time when every record has one (the timeline's own order), else by position. */
function geometry(marks: TimelineMark[], byTime: boolean): Geometry {
  if (marks.length === 0) return { x: () => LABEL_W, width: PLOT_W, axis: [] };
  if (byTime && marks.every((m) => m.started_ms !== null)) {
    const t0 = Math.min(...marks.map((m) => m.started_ms!));
    const t1 = Math.max(...marks.map((m) => m.started_ms!));
    const span = Math.max(t1 - t0, 1);
    const x = (m: TimelineMark) => LABEL_W + 8 + ((m.started_ms! - t0) / span) * (PLOT_W - 16);
    const axis = [0, 0.25, 0.5, 0.75, 1].map((f) => ({
      x: LABEL_W + 8 + f * (PLOT_W - 16),
      label: `${((f * span) / 1000).toFixed(span < 10_000 ? 2 : 0)} s`,
    }));
    return { x, width: PLOT_W, axis };
  }
  const n = Math.max(marks.length - 1, 1);
  const first = marks[0].position;
  const x = (m: TimelineMark) => LABEL_W + 8 + ((m.position - first) / n) * (PLOT_W - 16);
  return { x, width: PLOT_W, axis: [{ x: LABEL_W + 8, label: 'record order (no start times)' }] };
}

function timeline(d: ReportData): string {
  const marks = d.marks;
  const g = geometry(marks, d.state.timeline_order === 'start-time');
  const tools = [...new Set(marks.map((m) => m.tool))];
  const lane = new Map(tools.map((t, i) => [t, i]));
  const rootOf = new Map(marks.map((m) => [m.tool, m.root_path]));
  const typeByRoot = new Map(d.state.types.map((t) => [t.root_path, t]));
  const byOrdinal = new Map(marks.map((m) => [m.ordinal, m]));
  const height = TOP + tools.length * LANE_H + 10;
  const laneY = (i: number) => TOP + i * LANE_H;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" id="timeline-svg" width="${LABEL_W + g.width + 30}" height="${height}" role="img" aria-label="capture timeline">`,
  );
  for (const a of g.axis)
    out.push(
      `<line class="axis" x1="${a.x}" x2="${a.x}" y1="${TOP - 6}" y2="${height - 10}" stroke-opacity="0.25"/><text x="${a.x}" y="${TOP - 10}" text-anchor="middle">${esc(a.label)}</text>`,
    );
  const boundX = (t: StateType) => (t.bound ? byOrdinal.get(t.bound.write_ordinal) : undefined);
  for (const [tool, i] of lane) {
    const y = laneY(i);
    const type = typeByRoot.get(rootOf.get(tool)!);
    out.push(`<g class="lane" data-tool="${esc(tool)}"${type ? ` data-collection="${esc(type.collection)}"` : ''}>`);
    out.push(`<rect class="lane-bg" x="${LABEL_W}" y="${y}" width="${g.width}" height="${LANE_H - 2}"/>`);
    // The type's initial window: from the start to its bound (the whole capture when nothing bounds it).
    if (type) {
      const end = type.bound ? (boundX(type) ? g.x(boundX(type)!) : LABEL_W + g.width) : LABEL_W + g.width;
      out.push(
        `<rect class="window" x="${LABEL_W}" y="${y}" width="${Math.max(0, end - LABEL_W)}" height="${LANE_H - 2}"><title>initial state of ${esc(type.collection)}</title></rect>`,
      );
    }
    out.push(`<text x="${LABEL_W - 6}" y="${y + 14}" text-anchor="end">${esc(cut(tool, 44))}</text></g>`);
  }
  for (const m of marks) {
    const cls = ['mark', m.is_write ? 'write' : 'read', m.is_initial ? 'initial' : ''].filter(Boolean).join(' ');
    const y = laneY(lane.get(m.tool)!);
    const title = `#${m.ordinal} ${m.method} ${m.url} → ${m.status}${m.is_write ? ' (write)' : m.is_initial ? ' (initial read)' : ''}`;
    out.push(
      `<rect class="${cls}" data-ordinal="${m.ordinal}" data-tool="${esc(m.tool)}" data-method="${esc(m.method)}" ` +
        `x="${(g.x(m) - 3).toFixed(1)}" y="${y + 3}" width="6" height="${LANE_H - 8}"><title>${esc(cut(title, 300))}</title></rect>`,
    );
  }
  for (const t of d.state.types) {
    const w = boundX(t);
    if (!t.bound || !w) continue;
    const lanes = tools.filter((tool) => rootOf.get(tool) === t.root_path).map((tool) => lane.get(tool)!);
    const ys = lanes.length ? lanes : [lane.get(w.tool)!];
    const y1 = laneY(Math.min(...ys)) - 2;
    const y2 = laneY(Math.max(...ys)) + LANE_H;
    const x = g.x(w).toFixed(1);
    out.push(
      `<g class="bound-of" data-collection="${esc(t.collection)}"><line class="bound" data-collection="${esc(t.collection)}" data-write-ordinal="${t.bound.write_ordinal}" x1="${x}" x2="${x}" y1="${y1}" y2="${y2}"/>` +
        `<title>${esc(`${t.collection}: initial reads end at ${boundIsRead(d, t) ? 'read' : 'write'} #${t.bound.write_ordinal}`)}</title></g>`,
    );
  }
  out.push('</svg>');
  const writes = marks.filter((m) => m.is_write).length;
  const initial = marks.filter((m) => m.is_initial).length;
  return `<section id="timeline"><h2>Timeline</h2>
<p>${plural(marks.length, 'request')} of ${plural(tools.length, 'tool')}, ${d.state.timeline_order === 'start-time' ? 'placed by start time' : 'in record order (some records have no start time)'}: ${plural(writes, 'write')}, ${plural(initial, 'initial read')}.
Reads before a type's first change show its initial state; that is what the state is made of.</p>
<p class="legend"><span><i class="sw" style="background:#1f8a3a"></i>initial read</span><span><i class="sw" style="background:#3b6fd8"></i>later read</span><span><i class="sw" style="background:#d62f2f"></i>write</span><span><i class="sw" style="background:#d8f0dc"></i>initial window of the tool's type</span><span><i class="sw" style="border-left:2px dashed #d62f2f"></i>the type's bound (the write that ends it)</span></p>
<div style="overflow-x:auto">${out.join('\n')}</div></section>`;
}

/** A cell's text: strings as they are, other values as exact JSON. */
const cellText = (v: JsonValue | undefined) => (v === undefined ? '' : typeof v === 'string' ? v : stringifyExact(v));

/** Issue 18: the type's bound sits at a read (an absence bound), not a write. */
const boundIsRead = (d: ReportData, t: StateType) => !!t.bound && d.marks.some((m) => m.ordinal === t.bound!.write_ordinal && !m.is_write);

function typesSection(d: ReportData): string {
  const parts: string[] = [
    `<section id="types"><h2>Types</h2><p>${plural(d.state.types.length, 'type')}, ${plural(d.state.entities.length, 'entity', 'entities')} in the initial state.</p>`,
  ];
  for (const t of d.state.types) {
    const entities = d.state.entities.filter((e) => e.collection === t.collection);
    const shown = entities.slice(0, MAX_ENTITY_ROWS);
    const keys: string[] = [];
    for (const e of shown) {
      if (e.value && typeof e.value === 'object' && !Array.isArray(e.value))
        for (const k of Object.keys(e.value)) if (!keys.includes(k)) keys.push(k);
    }
    const cols = keys.slice(0, 16);
    parts.push(
      `<section class="type" data-collection="${esc(t.collection)}"><h3>${esc(t.collection)}</h3>`,
      `<p class="meta">Under <code>${esc(t.root_path)}</code>, told apart by <code>${esc(t.identity)}</code>. ${esc(boundSentence(t, boundIsRead(d, t)))}</p>`,
    );
    if (shown.length === 0) {
      parts.push('<p>No entity of this type is in the initial state.</p></section>');
      continue;
    }
    parts.push(
      `<table class="entities" data-collection="${esc(t.collection)}"><thead><tr><th>id</th>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}${keys.length > cols.length ? `<th>… ${keys.length - cols.length} more fields</th>` : ''}</tr></thead><tbody>`,
    );
    for (const e of shown) {
      const obj = e.value && typeof e.value === 'object' && !Array.isArray(e.value) ? (e.value as Record<string, JsonValue>) : null;
      const cells = obj
        ? cols.map((c) => `<td class="v">${esc(cut(cellText(obj[c]), 200))}</td>`)
        : [`<td class="v" colspan="${Math.max(cols.length, 1)}">${esc(cut(cellText(e.value), 400))}</td>`];
      parts.push(
        `<tr data-id="${esc(e.id)}"><td class="v">${esc(e.id)}</td>${cells.join('')}${keys.length > cols.length ? '<td></td>' : ''}</tr>`,
      );
    }
    parts.push('</tbody></table>');
    if (entities.length > shown.length)
      parts.push(`<p class="meta">and ${entities.length - shown.length} more (capstate state --json has them all)</p>`);
    parts.push('</section>');
  }
  parts.push('</section>');
  return parts.join('\n');
}

function documentsSection(d: ReportData): string {
  const parts = [
    `<section id="documents"><h2>Documents</h2><p>${plural(d.state.documents.length, 'document')}: responses that are one thing rather than entities of a type.</p>`,
  ];
  for (const doc of d.state.documents) {
    const text = stringifyExact(doc.value, 2);
    parts.push(
      `<section class="document" data-tool="${esc(doc.tool)}"><h3><code>${esc(doc.path + (doc.query ? `?${doc.query}` : ''))}</code></h3>` +
        `<p class="meta">${esc(doc.tool)}, from record #${doc.record_ordinal} (status ${doc.status})</p><pre>${esc(cut(text, MAX_DOCUMENT_CHARS))}</pre></section>`,
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

function plansSection(d: ReportData): string {
  const rows = d.state.plans.map(
    (p) =>
      `<tr data-tool="${esc(p.tool)}" data-kind="${esc(p.kind)}"><td><code>${esc(p.tool)}</code></td><td>${esc(planSentence(p))}</td></tr>`,
  );
  return `<section id="plans"><h2>Read tools</h2><p>How each read tool is answered when the capture is served.</p>
<table class="plans"><thead><tr><th>tool</th><th>how it is answered</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></section>`;
}

/** The whole page for one capture. */
export function renderReport(d: ReportData): string {
  const notes = [
    ...d.state.limitations.map((l) => `Limitation: ${plainText(l)}`),
    ...d.state.gate_findings.map((f) => `Write check: ${plainText(f)}`),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`capstate report: ${d.capture.path}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header><h1>What the capture shows</h1>
<p class="meta">${esc(d.capture.path)} (${esc(d.capture.format)}, ${(d.capture.bytes / 1e6).toFixed(2)} MB), capture ${d.capture.id}; state sha256 <code>${esc(d.state_sha256)}</code>. Made by capstate report from the state stored in the store.</p>
${notes.length ? `<ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</header>
${timeline(d)}
${typesSection(d)}
${documentsSection(d)}
${plansSection(d)}
</body>
</html>
`;
}
