/**
 * Member rows flattened by SQLite: one `INSERT … SELECT … FROM json_tree(?)` per body
 * instead of a bound parameter per column per row from JavaScript (the hand-off that
 * limited the load to ~0.5 M rows/s; perf-baselines.md, B).
 *
 * ES-5: only text the exact-JSON owner accepted for it (`acceptsForTree` in bodies.ts) is
 * flattened here, so json_tree reads the same values the exact parser would: the rows are
 * those `flattenMembers` writes (test/member-tree.test.ts compares the two).
 *
 * How json_tree's columns become member columns:
 * - pointer: json_tree's `path` is the parent's `$`-path (`$.items[0]`, `$."first-name"`);
 *   with member names free of `. ~ / " [ ]` (acceptsForTree), dropping `$`, `"` and `]`
 *   and turning `.` and `[` into `/` gives the parent's RFC 6901 pointer, and the member's
 *   own pointer is that plus `/` and its key (an array index or the name).
 * - position: the member's rank among its parent's children in document order
 *   (json_tree's `id` grows in document order); for arrays that is the index.
 * - depth: one more than the number of `/` in the parent's pointer (names hold none).
 * - key: NULL for array elements and the root, as flattenMembers writes.
 * - type/value: json_tree calls strings `text`; its `atom` is TEXT, INTEGER (64-bit exact),
 *   REAL, 1/0 for true/false and NULL for containers and null, which is the member value.
 * One query level with the window (measured ~18% faster than nesting, and than sorting
 * the rows by pointer first).
 */
export const MEMBER_TREE_SQL = `
insert into member (body_id, pointer, parent_pointer, key, position, depth, type, value)
select @body, iif(parent is null, '', parent_pointer || '/' || key), parent_pointer, iif(typeof(key) = 'integer', null, key),
  row_number() over (partition by parent order by id) - 1,
  iif(parent is null, 0, length(parent_pointer) - length(replace(parent_pointer, '/', '')) + 1),
  iif(type = 'text', 'string', type), atom
from (
  select id, parent, key, type, atom,
    iif(parent is null, null, replace(replace(replace(replace(substr(path, 2), '.', '/'), '[', '/'), ']', ''), '"', '')) as parent_pointer
  from json_tree(@text)
)`;
