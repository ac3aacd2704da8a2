/**
 * Issue 44: the API's embed conventions (src/model/plan/embed-conventions.ts). On the fidelity
 * benchmark's json-server 0.17.4 capture (bench/fidelity/), only `GET /posts/1?_embed=comments`
 * embeds: the stored state verifies there that `_embed=comments` is the comments whose `postId`
 * is the post's id. What json-server answers for the other embeds is its own behaviour over the
 * seed the session read (db.json): `?_embed=NAME` gives each object the NAME entities whose
 * `<singular of this collection>Id` is its id, `?_expand=NAME` the NAME+s entity its `NAMEId`
 * names. So the expectations below are db.json embedded as json-server embeds it.
 */
import { describe, expect, it } from 'vitest';
import { linkRels } from '../bench/fidelity/compare.js';
import { servedFidelityApp, type Row } from './fidelity-served.js';
import { learnEmbedConventions, widenEmbedded } from '../src/model/plan/embed-conventions.js';
import type { Relation } from '../src/model/plan/relations.js';
import type { ItemPlan, ListPlan } from '../src/model/plan/types.js';
import { line } from './serve-helpers.js';

const served = servedFidelityApp('json-server-0.17');
const { seed, get } = served;
/** json-server 0.17's `_embed`: the children whose `<one>Id` is the object's id, appended after its own members. */
const embed = (rows: Row[], name: 'posts' | 'comments', field: string) =>
  rows.map((r) => ({ ...r, [name]: seed[name].filter((c) => c[field] === r.id) }));

describe('issue 44: embed conventions learned from the whole capture (api-embed)', () => {
  it('api-embed: _embed=comments proved on /posts/{id} embeds each post its comments in the /posts list', async () => {
    const r = await get('/posts?_embed=comments');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(embed(seed.posts, 'comments', 'postId'));
    // Member order as json-server sends it: the post's own members, then the embedded one.
    expect(Object.keys((r.json as object[])[0])).toEqual([...Object.keys(seed.posts[0]), 'comments']);
    expect(r.h('capstate-answer')).toBe('convention');
    expect(r.h('capstate-convention')).toBe('api-embed');
    // With the list's own filter, the convention embeds in what the filter picks.
    const f = await get('/posts?userId=2&_embed=comments');
    expect(f.json).toEqual(
      embed(
        seed.posts.filter((p) => p.userId === 2),
        'comments',
        'postId',
      ),
    );
    expect(f.h('capstate-convention')).toBe('api-embed');
  });

  it('api-embed: beside the API window, the page and its links keep the embed key where the call gave it, as json-server links its own URL', async () => {
    const r = await get('/posts?_page=2&_embed=comments&_limit=3');
    expect(r.json).toEqual(embed(seed.posts, 'comments', 'postId').slice(3, 6));
    expect(r.h('x-total-count')).toBe(String(seed.posts.length));
    const rels = linkRels(r.h('link'));
    expect(rels).toEqual({
      first: '/posts?_page=1&_embed=comments&_limit=3',
      prev: '/posts?_page=1&_embed=comments&_limit=3',
      next: '/posts?_page=3&_embed=comments&_limit=3',
      last: '/posts?_page=3&_embed=comments&_limit=3',
    });
    expect(r.h('capstate-convention')).toBe('api-embed');
  });

  it('api-embed: the item the relation was proved on answers as before, from state, with no convention', async () => {
    const r = await get('/posts/3?_embed=comments');
    expect(r.json).toEqual(embed([seed.posts.find((p) => p.id === 3)!], 'comments', 'postId')[0]);
    expect(r.h('capstate-answer')).toBe('state');
    expect(r.h('capstate-convention')).toBeNull();
  });

  it('api-embed: the _embed pattern (postId = singular(posts) + Id) embeds /users/2?_embed=posts by userId', async () => {
    const r = await get('/users/2?_embed=posts');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(embed([seed.users.find((u) => u.id === 2)!], 'posts', 'userId')[0]);
    expect(r.h('capstate-answer')).toBe('convention');
    expect(r.h('capstate-convention')).toBe('api-embed');
    // And on a list no read of which embeds, with another child collection that carries userId.
    const l = await get('/users?_embed=comments');
    expect(l.json).toEqual(embed(seed.users, 'comments', 'userId'));
    expect(l.h('capstate-convention')).toBe('api-embed');
  });

  it("api-embed: a convention's embedded members come from this session's model (a created comment shows)", async () => {
    const created = await fetch(`${served.base()}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ postId: 4, userId: 2, body: 'Embedded after a write' }),
    });
    expect(created.status).toBe(201);
    const comment = (await created.json()) as Row;
    try {
      const r = await get('/users/2?_embed=comments');
      expect((r.json as { comments: Row[] }).comments).toEqual([...seed.comments.filter((c) => c.userId === 2), comment]);
      expect((await get('/posts?_embed=comments')).json).toEqual(
        embed(seed.posts, 'comments', 'postId').map((p) => (p.id === 4 ? { ...p, comments: [...(p.comments as Row[]), comment] } : p)),
      );
    } finally {
      expect((await fetch(`${served.base()}/__capstate/reset`, { method: 'POST' })).status).toBe(200);
    }
  });

  it('api-embed: a param no relation of the capture proved stays unknown and is declined (501): _expand, and _embed naming a parent', async () => {
    for (const path of ['/comments?_expand=post', '/comments?postId=1&_expand=user', '/posts/1?_expand=user', '/comments?_embed=post']) {
      const r = await fetch(served.base() + path);
      expect(r.status, path).toBe(501);
      expect(r.headers.get('capstate-answer'), path).toBe('declined');
      expect(r.headers.get('x-capstate-error'), path).toBe('no-convention');
    }
  });

  it('api-embed: MCP list and item tools publish the param with the relation, describe it, and answer with the convention in _meta', async () => {
    const query = (tool: string) =>
      (served.mcp().tool(tool).inputSchema.properties as Record<string, { properties: Record<string, { description: string }> }>).query;
    expect(query('get_posts').properties._embed.description).toMatch(
      /api-embed convention: comments \(the comments whose postId is its id\)/,
    );
    expect(query('get_users_by_id').properties._embed.description).toMatch(
      /api-embed convention: .*posts \(the posts whose userId is its id\)/,
    );
    expect(query('get_comments').properties._embed).toBeUndefined();
    expect(query('get_comments').properties._expand).toBeUndefined();
    expect(line(served.mcp().tool('get_posts'))).toMatch(
      /_embed=comments \(the comments whose postId is its id\) from state by the API's api-embed convention \(proved by get_posts_by_id\)/,
    );
    expect(line(served.mcp().tool('get_users_by_id'))).toMatch(/_embed=posts \(the posts whose userId is its id\).*api-embed/);
    const res = await served.mcp().call('get_users_by_id', { id: '2', query: { _embed: 'posts' } });
    expect(res.isError).toBeFalsy();
    expect(res._meta).toMatchObject({ 'capstate/answer': 'convention', 'capstate/convention': 'api-embed' });
    expect(JSON.parse((res.content[1] as { text: string }).text)).toEqual(
      embed([seed.users.find((u) => u.id === 2)!], 'posts', 'userId')[0],
    );
    expect((res.content[0] as { text: string }).text).toMatch(
      /the posts whose userId is its id, by the API's embed convention.*proved by get_posts_by_id/,
    );
  });
});

describe('issue 44: learnEmbedConventions and widenEmbedded', () => {
  const relation = (r: Omit<Relation, 'member'> & { member: string }): Relation => r;
  const plan = (tool: string, collection: string, kind: 'item' | 'list', embedded?: ItemPlan['embedded_members']) =>
    ({ tool, kind, collection, fields: [], lines: [], ...(embedded ? { embedded_members: embedded } : {}) }) as unknown as
      | ItemPlan
      | ListPlan;
  const comments = relation({ param: '_embed', member: 'comments', kind: 'children', collection: 'comments', field: 'postId' });
  const fields: Record<string, string[]> = {
    posts: ['id', 'userId', 'title'],
    comments: ['id', 'postId', 'userId', 'body'],
    users: ['id', 'name'],
  };
  const fieldsOf = (c: string) => fields[c] ?? [];
  const collections = Object.keys(fields);

  it('api-embed: a relation proved on one tool of a collection applies to its other tools, marked with the proving tool', () => {
    const conv = learnEmbedConventions([
      plan('get_posts_by_id', 'posts', 'item', [{ param: '_embed', member: 'comments', relation: comments }]),
    ]);
    const w = widenEmbedded(plan('get_posts', 'posts', 'list'), conv, collections, fieldsOf);
    expect(w.members).toEqual([{ param: '_embed', member: 'comments', relation: comments }]);
    expect(w.borrowed.get('_embed=comments')).toEqual({ convention: 'api-embed', tools: ['get_posts_by_id'] });
  });

  it('api-embed: the pattern generalizes by the proven spelling to collections whose children carry it, and only there', () => {
    const conv = learnEmbedConventions([
      plan('get_posts_by_id', 'posts', 'item', [{ param: '_embed', member: 'comments', relation: comments }]),
    ]);
    expect(conv.patterns).toEqual([{ param: '_embed', kind: 'children', suffix: 'Id', tools: ['get_posts_by_id'] }]);
    expect(widenEmbedded(plan('get_users', 'users', 'list'), conv, collections, fieldsOf).members.map((m) => m.relation)).toEqual([
      { param: '_embed', member: 'posts', kind: 'children', collection: 'posts', field: 'userId' },
      { param: '_embed', member: 'comments', kind: 'children', collection: 'comments', field: 'userId' },
    ]);
    // No collection carries commentId, and no parent relation was proved: comments embed nothing.
    expect(widenEmbedded(plan('get_comments', 'comments', 'list'), conv, collections, fieldsOf).members).toEqual([]);
  });

  it('api-embed: a field not spelled from the word (authorId) proves the relation but no pattern; a reading the capture refused is not borrowed', () => {
    const byAuthor = relation({ param: '_embed', member: 'posts', kind: 'children', collection: 'posts', field: 'authorId' });
    expect(
      learnEmbedConventions([plan('get_users_by_id', 'users', 'item', [{ param: '_embed', member: 'posts', relation: byAuthor }])])
        .patterns,
    ).toEqual([]);
    const conv = learnEmbedConventions([
      plan('get_posts_by_id', 'posts', 'item', [{ param: '_embed', member: 'comments', relation: comments }]),
      // The users list names _embed=posts in a recorded read that no reading reproduced.
      plan('get_users', 'users', 'list', [{ param: '_embed', member: 'posts' }]),
    ]);
    const users = widenEmbedded(plan('get_users_by_id', 'users', 'item'), conv, collections, fieldsOf);
    expect(users.members.map((m) => m.member)).toEqual(['comments']);
  });

  it('api-embed: a parent relation generalizes only with the param it was proved with', () => {
    const post = relation({ param: '_expand', member: 'post', kind: 'parent', collection: 'posts', field: 'postId' });
    const conv = learnEmbedConventions([plan('get_comments', 'comments', 'list', [{ param: '_expand', member: 'post', relation: post }])]);
    const w = widenEmbedded(plan('get_posts', 'posts', 'list'), conv, collections, fieldsOf);
    expect(w.members).toEqual([
      {
        param: '_expand',
        member: 'user',
        relation: { param: '_expand', member: 'user', kind: 'parent', collection: 'users', field: 'userId' },
      },
    ]);
  });
});
