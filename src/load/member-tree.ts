/**
 * Member rows flattened by SQLite: one `INSERT … SELECT … FROM json_tree(?)` per body
 * instead of a bound parameter per column per row from JavaScript (the hand-off that
 * limited the load to ~0.5 M rows/s; perf-baselines.md, B).
 *
 * ES-5: only text the exact-JSON owner accepted for it (`acceptsForTree` in bodies.ts) is
 * flattened here, so json_tree reads the same values the exact parser would: the rows are
 * those `flattenMembers` writes (test/member-tree.test.ts compares the two through the
 * `member` view, and the node numbers by their order).
 *
 * How json_tree's columns become member_node columns (schema/member_node.sql, issue 14):
 * - node, parent: json_tree's `id` and `parent` (ids grow in document order); the root's
 *   parent is -1 (a key column cannot be NULL).
 * - key: the member name (TEXT) or the array index (INTEGER), as json_tree gives it; 0 for
 *   the root.
 * - position is not written: the table works it out (migration 0013) as an order key among
 *   siblings, not a rank: the index for an array element, the node for an object member (ids
 *   grow in document order), 0 for the root. A dense rank needs a window over each parent's
 *   children, which cost ~40% of this statement (bench/member-layouts: 2.20 → 1.27 CPU s at
 *   50 MB); rule views only order object members by it, and the `member` view ranks them.
 * - depth, for objects and arrays only (NULL for scalars, migration 0012): the `.` and `[`
 *   in the parent's `$`-path (`$.items[0]`), one per level: member names hold neither
 *   (acceptsForTree). Asking for `path` makes json_tree build it, which for every row was
 *   30% of this statement; a scalar's depth is its parent's plus one (the `member` view).
 * - pointer, for objects and arrays only: json_tree's `fullkey` with `$`, `"` and `]`
 *   dropped and `.` and `[` turned into `/` is the RFC 6901 pointer, names being free of
 *   `. ~ / " [ ]`.
 * - value: json_tree's `atom`, TEXT, INTEGER (64-bit exact), REAL, 1/0 for true/false and
 *   NULL for containers and null. `type` is worked out from it (migration 0013); `shape`
 *   says what the value cannot: 0 object, 1 array, 2 true, 3 false, NULL otherwise.
 * One query level, no window.
 */

/** The columns a member_node row is written with, in order (type and position are worked out by the table, migration 0013). */
const WRITTEN = ['body_id', 'parent', 'key', 'node', 'depth', 'shape', 'value', 'pointer'] as const;
export const MEMBER_NODE_COLUMNS = `(${WRITTEN.join(', ')})`;
/** Parameters of one written row (memberNodeParams in bodies.ts gives them in this order). */
export const MEMBER_NODE_PARAMS = WRITTEN.length;
/** One row's placeholders, for single and batched inserts. */
export const MEMBER_NODE_PLACEHOLDERS = `(${WRITTEN.map(() => '?').join(', ')})`;

/** The statement this file's opening describes: one body's member rows, flattened by json_tree. */
export const MEMBER_TREE_SQL = `
insert into member_node ${MEMBER_NODE_COLUMNS}
select @body, ifnull(parent, -1), ifnull(key, 0), id,
  iif(type = 'object' or type = 'array', iif(parent is null, 0, length(path) - length(replace(replace(path, '.', ''), '[', '')) + 1), null),
  case type when 'object' then 0 when 'array' then 1 when 'true' then 2 when 'false' then 3 end, atom,
  iif(type = 'object' or type = 'array', replace(replace(replace(replace(substr(fullkey, 2), '.', '/'), '[', '/'), ']', ''), '"', ''), null)
from json_tree(@text)`;

/** One member_node row from JavaScript (the exact parser's road, ES-5), in column order. */
export const MEMBER_NODE_INSERT = `insert into member_node ${MEMBER_NODE_COLUMNS} values ${MEMBER_NODE_PLACEHOLDERS}`;
