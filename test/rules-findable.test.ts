/**
 * Issue 43, "rules findable": docs/rules.md names, after each rule, the one file that decides
 * it (`*Where:* [queries/x.sql](../queries/x.sql)`, or `*Where:* ES-17 [a](…); ES-18 [b](…)`
 * when an entry's rules live apart). This test holds that list to the code:
 * - every rule entry has a *Where:* line naming, for each of its rule IDs, exactly one file;
 * - every named file exists and its header (first comment block) cites the rule ID (a range
 *   such as `DESC-1 to DESC-5` or `ES-12..ES-19` cites the IDs within it);
 * - a file *claims* a rule with `@rule` in its header (`-- @rule   ES-8` in a view, parsed as
 *   src/store/open.ts listViews does; ` * @rule ES-26, OQ-19` in a TypeScript step). A rule
 *   claimed by two files is implemented twice — unless they are one chain: a view the file
 *   rules.md names reads, directly or through other views (its `@reads`), is a step of it.
 *   A TypeScript step names the views it builds on with `@reads` the same way.
 * - a rule in rules.md that some file claims is named there by a file that claims it or reads it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './helpers.js';

/** One rule ID → the file rules.md names for it, with the entry's first line for messages. */
interface Named {
  id: string;
  file: string;
  entry: string;
}

/** The rule entries of a rules.md text: each entry's IDs (its anchors) and its *Where:* links. */
function parseRules(text: string): { named: Named[]; problems: string[] } {
  const named: Named[] = [];
  const problems: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const ids = [...block.matchAll(/<a id="([a-z]+-\d+)"><\/a>/g)].map((m) => m[1].toUpperCase());
    if (ids.length === 0) continue;
    const entry = block
      .split('\n')[0]
      .replace(/<a id="[^"]*"><\/a>/g, '')
      .slice(0, 60);
    const where = block.split('\n').find((l) => l.startsWith('*Where:*'));
    if (!where) {
      problems.push(`${ids.join(', ')}: no *Where:* line (${entry})`);
      continue;
    }
    const links = [...where.matchAll(/(?:([A-Z]+-\d+)\s+)?\[([^\]]+)\]\(\.\.\/([^)]+)\)/g)].map((m) => ({
      id: m[1],
      text: m[2],
      file: m[3],
    }));
    if (links.length === 0) {
      problems.push(`${ids.join(', ')}: *Where:* names no file (${entry})`);
      continue;
    }
    for (const l of links) if (l.text !== l.file) problems.push(`${ids.join(', ')}: link text ${l.text} is not its target ${l.file}`);
    for (const id of ids) {
      const files = links.length === 1 && links[0].id === undefined ? [links[0].file] : links.filter((l) => l.id === id).map((l) => l.file);
      if (files.length !== 1)
        problems.push(`${id}: *Where:* names ${files.length} files for it (${entry}); one rule, one implementing file`);
      else named.push({ id, file: files[0], entry });
    }
    for (const l of links)
      if (l.id !== undefined && !ids.includes(l.id))
        problems.push(`${l.id}: named in the *Where:* of an entry that is not its own (${entry})`);
  }
  const seen = new Map<string, string>();
  for (const n of named) {
    if (seen.has(n.id)) problems.push(`${n.id}: rules.md names it twice (${seen.get(n.id)} and ${n.file})`);
    seen.set(n.id, n.file);
  }
  return { named, problems };
}

/** The first comment block of a .ts or .sql file: a `/** … *\/` block, or the leading `--` / `//` lines. */
function headerOf(text: string): string {
  const m = /^\s*(\/\*[\s\S]*?\*\/|(?:(?:--|\/\/)[^\n]*\n)+)/.exec(text);
  return m ? m[1] : '';
}

/** Whether `header` cites `id`: the ID itself, or a range of its prefix that holds it (`DOC-1..DOC-5`, `DESC-1 to DESC-5`). */
function cites(header: string, id: string): boolean {
  if (new RegExp(`\\b${id}\\b`).test(header)) return true;
  const [prefix, n] = [id.replace(/-\d+$/, ''), Number(id.replace(/^.*-/, ''))];
  return [...header.matchAll(new RegExp(`\\b${prefix}-(\\d+)\\s*(?:\\.\\.|to|–)\\s*${prefix}-(\\d+)\\b`, 'g'))].some(
    (m) => Number(m[1]) <= n && n <= Number(m[2]),
  );
}

/** What a header claims (`@rule`) and reads (`@reads`); `none` claims nothing. */
function tags(header: string): { rules: string[]; reads: string[] } {
  const tag = (name: string) =>
    (new RegExp(`^\\s*(?:--|\\*|//)\\s*@${name}\\s+(.+)$`, 'm').exec(header)?.[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && s !== 'none');
  return { rules: tag('rule'), reads: tag('reads') };
}

interface Source {
  file: string;
  header: string;
  rules: string[];
  reads: string[];
  view?: string;
}

/** Every queries/*.sql view and src/ TypeScript file under `dir`, with its header's tags. */
function sources(dir: string): Source[] {
  const out: Source[] = [];
  for (const [folder, ext] of [
    ['queries', '.sql'],
    ['src', '.ts'],
  ] as const) {
    if (!existsSync(join(dir, folder))) continue;
    for (const f of (readdirSync(join(dir, folder), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((x) => x.endsWith(ext))
      .sort()) {
      const text = readFileSync(join(dir, folder, f), 'utf8');
      const header = headerOf(text);
      const view = ext === '.sql' ? /create\s+view\s+([a-z_][a-z0-9_]*)/i.exec(text)?.[1] : undefined;
      out.push({ file: `${folder}/${f}`, header, ...tags(header), ...(view ? { view } : {}) });
    }
  }
  return out;
}

/** Every problem with `dir`'s docs/rules.md against its files; empty when each rule is findable and implemented once. */
function rulesProblems(dir: string): string[] {
  const { named, problems } = parseRules(readFileSync(join(dir, 'docs', 'rules.md'), 'utf8'));
  const all = sources(dir);
  const byFile = new Map(all.map((s) => [s.file, s]));
  const byView = new Map(all.filter((s) => s.view).map((s) => [s.view!, s]));
  /** The views `s` reads, directly or through other views. */
  const upstream = (s: Source): Set<string> => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      byView.get(name)?.reads.forEach(visit);
    };
    s.reads.forEach(visit);
    return seen;
  };
  const namedFor = new Map(named.map((n) => [n.id, n.file]));
  for (const n of named) {
    const s = byFile.get(n.file);
    if (!s) {
      problems.push(`${n.id}: rules.md names ${n.file}, which does not exist`);
      continue;
    }
    if (!cites(s.header, n.id)) problems.push(`${n.id}: ${n.file} is named for it, but its header does not cite ${n.id}`);
  }
  const claims = new Map<string, Source[]>();
  for (const s of all) for (const r of s.rules) (claims.get(r) ?? claims.set(r, []).get(r)!).push(s);
  for (const [id, by] of claims) {
    const file = namedFor.get(id);
    const owner = file === undefined ? by[0] : byFile.get(file);
    if (file !== undefined && owner && !by.includes(owner) && !by.some((s) => s.view && upstream(owner).has(s.view))) {
      problems.push(`${id}: claimed by ${by.map((s) => s.file).join(', ')}, but rules.md names ${file}, which neither claims nor reads it`);
      continue;
    }
    if (!owner) continue;
    const steps = upstream(owner);
    const twice = by.filter((s) => s !== owner && !(s.view && steps.has(s.view)));
    if (twice.length)
      problems.push(
        `${id}: implemented in two places: ${[owner, ...twice].map((s) => s.file).join(' and ')} both claim it (@rule), and neither reads the other`,
      );
  }
  return problems;
}

describe('rules findable: docs/rules.md names the one file that decides each rule', () => {
  it('every rule entry names, per rule ID, one existing file whose header cites it, and no rule is implemented twice', () => {
    expect(rulesProblems(root)).toEqual([]);
  });

  it('every rule of rules.md is named, and the state pass keeps its TypeScript rule steps in src/state/steps/, each claiming a rule', () => {
    const { named } = parseRules(readFileSync(join(root, 'docs', 'rules.md'), 'utf8'));
    const anchors = [...readFileSync(join(root, 'docs', 'rules.md'), 'utf8').matchAll(/<a id="([a-z]+-\d+)">/g)].map((m) =>
      m[1].toUpperCase(),
    );
    expect(named.map((n) => n.id).sort()).toEqual([...anchors].sort());
    const steps = readdirSync(join(root, 'src', 'state', 'steps')).filter((f) => f.endsWith('.ts'));
    expect(steps.length).toBeGreaterThan(0);
    for (const f of steps)
      expect(
        tags(headerOf(readFileSync(join(root, 'src', 'state', 'steps', f), 'utf8'))).rules.length,
        `src/state/steps/${f} @rule`,
      ).toBeGreaterThan(0);
  });

  it('the check fails on a missing file, a file not citing its rule, a rule claimed twice and an entry without *Where:*', () => {
    const dir = tempDir();
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    file(
      'docs/rules.md',
      [
        '# Rules',
        '<a id="es-8"></a>**ES-8 — first write.** Text.\n*Where:* [queries/first.sql](../queries/first.sql)',
        '<a id="es-9"></a>**ES-9 — elsewhere.** Text.\n*Where:* [queries/gone.sql](../queries/gone.sql)',
        '<a id="es-26"></a>**ES-26 — merge.** Text.\n*Where:* [src/state/steps/merge.ts](../src/state/steps/merge.ts)',
        '<a id="es-12"></a><a id="es-13"></a>**ES-12, ES-13 — projections.** Text.\n*Where:* ES-12 [queries/proj.sql](../queries/proj.sql)',
        '<a id="doc-3"></a>**DOC-3 — a document that changed.** Text.',
        '<a id="es-27"></a>**ES-27 — chains.** Text.\n*Where:* [queries/last.sql](../queries/last.sql)',
      ].join('\n\n') + '\n',
    );
    file('queries/first.sql', '-- @rule   ES-8\n-- @says   x\n-- @reads  record\ncreate view first as select 1;\n');
    file('queries/proj.sql', '-- @rule   ES-12\n-- @reads  record\ncreate view proj as select 1;\n');
    file('queries/step.sql', '-- @rule   ES-27\n-- @reads  record\ncreate view step as select 1;\n');
    file('queries/last.sql', '-- @rule   ES-27\n-- @reads  step\ncreate view last as select 1;\n');
    file('src/state/read-and-write.ts', '/**\n * @rule ES-8\n * The overlap test.\n */\nexport const x = 1;\n');
    file(
      'src/state/steps/merge.ts',
      '/**\n * @rule OQ-19\n * Merging (no citation of the rule it is named for).\n */\nexport const y = 1;\n',
    );
    expect(rulesProblems(dir).sort()).toEqual([
      'DOC-3: no *Where:* line (**DOC-3 — a document that changed.** Text.)',
      'ES-13: *Where:* names 0 files for it (**ES-12, ES-13 — projections.** Text.); one rule, one implementing file',
      'ES-26: src/state/steps/merge.ts is named for it, but its header does not cite ES-26',
      'ES-8: implemented in two places: queries/first.sql and src/state/read-and-write.ts both claim it (@rule), and neither reads the other',
      'ES-9: rules.md names queries/gone.sql, which does not exist',
    ]);
  });

  it('a header cites a rule by its ID or by a range that holds it', () => {
    expect(cites('/** Tool descriptions (DESC-1 to DESC-5). */', 'DESC-3')).toBe(true);
    expect(cites('/** documents (DOC-1..DOC-5) */', 'DOC-4')).toBe(true);
    expect(cites('/** documents (DOC-1..DOC-5) */', 'DOC-6')).toBe(false);
    expect(cites('/** ES-12 */', 'ES-1')).toBe(false);
  });
});
