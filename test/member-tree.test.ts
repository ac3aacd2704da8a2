/**
 * ES-5: member rows flattened by SQLite's json_tree (src/load/member-tree.ts) are the rows
 * the exact parser's value flattened in JavaScript gives (flattenMembers), column for column
 * and storage type for storage type, for generated bodies and for every fixture's bodies:
 * through the `member` view, and in member_node itself with the node numbers compared by
 * their order in the body (json_tree's ids are not consecutive; both grow in document order).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { acceptsForTree, classifyRetainedBody, flattenMembers, memberNodeParams } from '../src/load/bodies.js';
import { parseExactJson, stringifyExact, type JsonValue } from '../src/json/exact.js';
import { MEMBER_NODE_INSERT, MEMBER_TREE_SQL } from '../src/load/member-tree.js';
import { type Sqlite } from '../src/store/open.js';
import { fixtureStore } from './fixture-stores.js';
import { fixtureCases, migratedStore, tempDir } from './helpers.js';
import { registerBodyFunctions } from '../src/store/body-content.js';

const dir = tempDir();
const VIEW_ROWS = `select pointer, parent_pointer, key, position, depth, type, value, typeof(value) as storage
  from member where body_id = ? order by pointer`;
// member_node's own rows, each node and parent number replaced by its rank in the body, and
// an object member's position (an order key: the node) by its rank among its siblings.
const NODE_ROWS = `with ranked as (
    select n.*, row_number() over (order by node) - 1 as node_rank,
           iif(typeof(key) = 'text', row_number() over (partition by parent order by position) - 1, position) as position_rank
    from member_node n where body_id = ?
  )
  select c.node_rank, ifnull(p.node_rank, -1) as parent_rank, c.key, typeof(c.key) as key_storage, c.position_rank, c.depth,
         c.type, c.value, typeof(c.value) as storage, c.pointer
  from ranked c left join ranked p on p.node = c.parent
  order by c.node_rank`;
const rowsOf = (db: Sqlite, bodyId: number) => ({
  view: db.prepare(VIEW_ROWS).safeIntegers().all(bodyId),
  nodes: db.prepare(NODE_ROWS).safeIntegers().all(bodyId),
});

function store(name: string): Sqlite {
  const db = migratedStore(join(dir, name), { scratch: true });
  db.pragma('foreign_keys = OFF'); // member rows without body rows: only the flattening is under test
  return db;
}

/** The rows the JavaScript flattening writes for the exact value of `text` (the path json_tree replaces). */
function jsRows(db: Sqlite, bodyId: number, text: string): ReturnType<typeof rowsOf> {
  const parsed = parseExactJson(text);
  if (!parsed.ok) throw new Error(`not exact JSON: ${parsed.detail}`);
  const ins = db.prepare(MEMBER_NODE_INSERT);
  // One transaction per body, as the load writes them (one commit per row made the fixtures' test take minutes).
  db.transaction(() => flattenMembers(parsed.value, (m) => ins.run(memberNodeParams(bodyId, m))))();
  return rowsOf(db, bodyId);
}

function treeRows(db: Sqlite, bodyId: number, text: string): ReturnType<typeof rowsOf> {
  db.prepare(MEMBER_TREE_SQL).run({ body: bodyId, text });
  return rowsOf(db, bodyId);
}

// Member names: plain ones, and ones json_tree's paths cannot carry (the fast road refuses those).
const name = fc.oneof(
  fc.constantFrom('id', 'name', 'first-name', '_id', '@type', '$ref', 'a b', 'é', '2', '0', '10', '', 'ünïcødé', '日本'),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('a~b', 'a/b', '~0', '~1', 'a.b', 'x[0]', 'q"r', '\\', 'line\nbreak'),
);
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom('000123', '', '~/', '\u0000', '\ud83d\ude00'),
  fc.integer(),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  // Integral doubles beyond 2^53 spell integers outside what ES-4 keeps exact (1e300): left out.
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0) && (!Number.isInteger(d) || Number.isSafeInteger(d))),
  fc.constantFrom(0.1, 1.5, -2.25, 1e-7, 5e-324, 1.7976931348623155e-308, 123456.789, 4503599627370495.5),
);
const { value: jsonValue } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.uniqueArray(fc.tuple(name, tie('value')), { maxLength: 5, selector: ([k]) => k }).map((entries) => new Map(entries) as JsonValue),
  ),
}));

describe('member_node depth: kept for objects and arrays only (migration 0012); the member view gives every depth', () => {
  it("scalars store no depth, containers do; the member view's depth of each member is the JavaScript flattening's count of levels", () => {
    const db = store('depth.sqlite');
    const text = '{"a":1,"b":{"c":[true,{"d":"x"}],"e":null},"f":[[2]]}';
    db.prepare(MEMBER_TREE_SQL).run({ body: 1, text });
    const stored = db
      .prepare(
        "select type in ('object', 'array') as container, depth is null as missing, count(*) as n from member_node where body_id = 1 group by 1, 2 order by 1, 2",
      )
      .raw()
      .all();
    expect(stored).toEqual([
      [0, 1, 5],
      [1, 0, 6],
    ]);
    const parsed = parseExactJson(text);
    if (!parsed.ok) throw new Error(parsed.detail);
    const counted = new Map<string, number>();
    flattenMembers(parsed.value, (m) => counted.set(m.pointer, m.depth));
    const viewed = new Map(db.prepare('select pointer, depth from member where body_id = 1').raw().all() as [string, number][]);
    expect(viewed).toEqual(counted);
    expect(viewed.get('/b/c/1/d')).toBe(4);
    db.close();
  });
});

describe('ES-5 members flattened by json_tree equal the JavaScript flattening', () => {
  it('ES-5 for generated bodies (64-bit integers, unicode names with ~ and /, nested arrays) the rows are the same', () => {
    const db = store('generated.sqlite');
    let id = 0;
    let viaTree = 0;
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (v, pretty) => {
        const text = stringifyExact(v, pretty ? 2 : 0);
        const b = classifyRetainedBody({ text, mediaType: 'application/json', isCut: false });
        expect(b.kind).toBe('json');
        if (b.treeText === undefined) return;
        viaTree++;
        const want = jsRows(db, ++id, text);
        expect(treeRows(db, ++id, b.treeText)).toEqual(want);
      }),
      { numRuns: 600 },
    );
    expect(viaTree).toBeGreaterThan(120);
    db.close();
  });

  it('ES-5 texts spelled otherwise (1.0, 1e2, -0, escapes, surrogates) either flatten the same or take the exact parser', () => {
    const db = store('spelled.sqlite');
    let id = 0;
    const texts = [
      '{"a":1.0,"b":1e2,"c":-0,"d":0.10,"e":1E-7,"f":2.50}',
      '[1.5e3, 0.1, -0.0]',
      '{"\\u0041b":"\\u00e9\\n\\t\\"\\\\"}',
      '{"s":"\\ud83d\\ude00","t":"\\u0000"}',
      '{"x":"\\ud800"}',
      '{"a":{"b":[[[]],{}]},"c":[]}',
      '"just a string"',
      '42',
      'null',
      '{"n":9223372036854775807,"m":-9223372036854775808,"k":9007199254740993}',
      ' \n{ "a" : [ 1 , 2 ] }\n',
      '{"2":"two","1":"one","b":{"10":1,"9":2}}',
      '{"a":"x\\/y"}',
      '{"a~b":1}',
      '{"a/b":1}',
      '[1e16, 12345678e10]',
    ];
    // Integral numbers outside 64 bits, however short their spelling, are not exact (ES-4).
    for (const text of ['[1.5e300]', '{"n":1e20}', '[-1e19]']) {
      expect(classifyRetainedBody({ text, mediaType: 'application/json', isCut: false }).reason, text).toBe('inexact-number');
    }
    for (const text of texts) {
      const b = classifyRetainedBody({ text, mediaType: 'application/json', isCut: false });
      expect(b.kind, text).toBe('json');
      const want = jsRows(db, ++id, text);
      if (b.treeText !== undefined) expect(treeRows(db, ++id, b.treeText), text).toEqual(want);
    }
    db.close();
  });

  it('ES-5 the fast road accepts only what the exact parser accepts', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          jsonValue.map((v) => stringifyExact(v)),
          fc.string(),
        ),
        (text) => {
          if (acceptsForTree(text)) expect(parseExactJson(text).ok, text).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    for (const text of ['{"a":1,"a":2}', '{"__proto__":1}', '[9223372036854775808]', '[3.14159265358979323846]', '{"a":1', '[1,]']) {
      expect(acceptsForTree(text), text).toBe(false);
    }
  });

  it('ES-5 the fast road refuses a name twice in one object at any depth, and accepts one name in many objects', () => {
    for (const text of [
      '{"a":{"b":1,"b":2}}',
      '[{"x":1},{"y":{"z":[{"k":1,"k":1}]}}]',
      '{"a":1,"a":{"b":1}}',
      '{"a":{"b":1,"c":2},"a":{"b":1}}',
      '{"a" : 1, "a" :2}',
    ]) {
      expect(acceptsForTree(text), text).toBe(false);
      expect(parseExactJson(text).ok, text).toBe(false);
    }
    for (const text of ['[{"a":1},{"a":2}]', '{"a":{"a":{"a":1}},"b":{"a":2}}', '{"x":[{"id":1,"tags":["a"]},{"id":2,"tags":[]}]}']) {
      expect(acceptsForTree(text), text).toBe(true);
    }
  });

  it("ES-5 every fixture: the stored member rows are the JavaScript flattening of each body's exact value", async () => {
    const captures = fixtureCases();
    expect(captures.length).toBeGreaterThan(5);
    const check = store('check.sqlite');
    let id = 0;
    let bodies = 0;
    for (const capture of captures) {
      const file = await fixtureStore(capture);
      const db = new Database(file, { readonly: true });
      registerBodyFunctions(db);
      for (const b of db
        .prepare("select c.id, c.content as text from body b join body_content c on c.id = b.id where b.kind = 'json'")
        .all() as { id: number; text: string }[]) {
        const stored = rowsOf(db, b.id);
        expect(stored.view.length, `${capture} body ${b.id}`).toBeGreaterThan(0);
        expect(stored, `${capture} body ${b.id}`).toEqual(jsRows(check, ++id, b.text));
        bodies++;
      }
      db.close();
    }
    expect(bodies).toBeGreaterThan(50);
    check.close();
  });
});
