/**
 * The README's links resolve inside the repository (issue 19): every relative link names a
 * file of the repository, every `#anchor` a heading or an `<a id>` of its file, nothing points
 * outside the repository (`../shared/spec/…` did), and every rule ID the README cites is
 * explained in docs/rules.md.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { root } from './helpers.js';

/** Prose of a markdown file: fenced blocks and inline code removed. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm)) out.add(slug(m[1].replace(/`/g, '')));
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1]);
  return out;
}

function linksOf(file: string): string[] {
  return [...prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

const RULE_ID = /\b(?:ES|BS|OQ|IDN|DOC|DESC|ACC|MCP)-\d+\b/g;

describe('README links resolve inside the repository', () => {
  for (const doc of ['README.md', 'docs/rules.md']) {
    it(`${doc}: every relative link names a file of the repository, and every anchor exists`, () => {
      const file = join(root, doc);
      const links = linksOf(file).filter((l) => !/^(https?:|mailto:)/.test(l));
      expect(links.length).toBeGreaterThan(3);
      const broken: string[] = [];
      for (const link of links) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        if (relative(root, target).startsWith('..') || !existsSync(target)) {
          broken.push(`${link}: no such file in the repository`);
          continue;
        }
        if (anchor !== undefined && statSync(target).isFile() && !anchorsOf(target).has(anchor)) broken.push(`${link}: no such anchor`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('names no path outside the repository, not even as code (the specification lives outside it)', () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    expect(text.match(/\.\.\/shared\b|\]\(\.\.\//g) ?? []).toEqual([]);
  });

  it('every rule ID the README cites is explained in docs/rules.md, and cited as a link to it', () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    const anchors = anchorsOf(join(root, 'docs/rules.md'));
    const ids = [...new Set(prose(text).match(RULE_ID) ?? [])];
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.filter((id) => !anchors.has(id.toLowerCase()))).toEqual([]);
    // In prose an ID is a link's text: `[ES-8](docs/rules.md#es-8)`.
    const bare = [
      ...prose(text)
        .replace(/\[[^\]]*\]\(docs\/rules\.md#[^)]+\)/g, '')
        .matchAll(RULE_ID),
    ].map((m) => m[0]);
    expect(bare.filter((id) => !/^#/.test(id))).toEqual([]);
  });
});
