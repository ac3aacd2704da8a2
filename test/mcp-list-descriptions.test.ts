/**
 * Issue 46, "MCP tools an agent reads at a glance": what tools/list shows per tool. The
 * untrusted-catalog caution is said once (the server's instructions, the card's `warning`),
 * not at the start of every description; write tools say what they do, as the load settled it
 * (the write effects stored with the state), instead of hedging on check-effects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, type Served } from './serve-helpers.js';
import { UNTRUSTED_CATALOG_WARNING } from '../src/serve/descriptions.js';
import { environmentCard } from '../src/serve/catalog.js';

const dir = tempDir();

function load(name: string): string {
  const db = join(dir, `${name}.sqlite`);
  const r = cli(['load', fixture(name, 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

let verified: Served;
let unverified: Served;
beforeAll(async () => {
  // json-server: every write tool verified (create, remove, merge, replace, document-merge);
  // chrome-har-real: post_api_notes is not (a later list read shows another count).
  verified = await serveStore(load('json-server'));
  unverified = await serveStore(load('chrome-har-real'));
}, 120_000);
afterAll(async () => {
  await verified?.close();
  await unverified?.close();
});

describe('issue 46: the untrusted-catalog caution is said once, in the instructions', () => {
  it("no tool's description carries it; the server's instructions and the card do", () => {
    for (const s of [verified, unverified]) {
      for (const t of s.tools) expect(t.description, t.name).not.toContain(UNTRUSTED_CATALOG_WARNING);
      expect(s.client.getInstructions()).toContain(UNTRUSTED_CATALOG_WARNING);
      expect(environmentCard(s.ctx, s.catalog).warning).toBe(UNTRUSTED_CATALOG_WARNING);
    }
  });

  it('a description starts with the method and template, so one line per tool tells them apart', () => {
    const get = verified.tool('get_posts');
    expect(get.description).toMatch(/^GET \/posts; /);
    expect(get.description).not.toContain('\n');
  });
});

describe('issue 46: write tools say what they do, as the load settled it', () => {
  it('verified writes name their change and that later reads show it', () => {
    const d = (name: string) => verified.tool(name).description!;
    expect(d('post_posts')).toContain('; creates a post; later reads show it;');
    expect(d('delete_posts_by_id')).toContain('; deletes the post {id}; later reads no longer show it;');
    expect(d('patch_posts_by_id')).toContain('; changes the fields it sends of the post {id}; later reads show the change;');
    expect(d('put_posts_by_id')).toContain('; replaces the post {id} with what it sends; later reads show the change;');
    expect(d('patch_profile')).toContain('; changes the fields it sends of the document /profile; later reads show the change;');
  });

  it('an unverified write says it replays and leaves the state as it was', () => {
    expect(unverified.tool('post_api_notes').description).toContain('; replays its recorded answers; the state stays as it was;');
  });

  it('no description hedges on check-effects any more', () => {
    for (const s of [verified, unverified])
      for (const t of s.tools) expect(t.description, t.name).not.toMatch(/check-effects|when the capture's later reads verify/);
  });
});
