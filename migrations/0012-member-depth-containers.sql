-- 0012: member_node.depth is kept for objects and arrays only (issue 14). Counting a
-- scalar's depth made json_tree build every row's `$`-path: 30% of the member insert
-- (bench/member-layouts: 4.21 → 2.99 s for 1.43 M rows). A scalar's depth is its parent's
-- plus one; the `member` view gives it, and rule views test a scalar's place by its parent.
-- The table is rebuilt (a column's NOT NULL cannot be dropped in place); legacy renaming
-- leaves the views' text alone, and the next write open rebuilds them.
PRAGMA legacy_alter_table = ON;
CREATE TABLE member_node_0012 (
  body_id INTEGER NOT NULL REFERENCES body (id),
  parent INTEGER NOT NULL,
  key ANY NOT NULL,
  node INTEGER NOT NULL,
  position INTEGER NOT NULL,
  depth INTEGER,
  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'
    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),
  value ANY,
  pointer TEXT,
  PRIMARY KEY (body_id, parent, key)
) STRICT, WITHOUT ROWID;
INSERT INTO member_node_0012 (body_id, parent, key, node, position, depth, type, value, pointer)
SELECT body_id, parent, key, node, position, iif(type = 'object' OR type = 'array', depth, NULL), type, value, pointer
FROM member_node ORDER BY body_id, parent, key;
DROP TABLE member_node;
ALTER TABLE member_node_0012 RENAME TO member_node;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX member_node_pointer ON member_node (body_id, pointer) WHERE pointer IS NOT NULL;
DELETE FROM meta WHERE key = 'queries_sha256';
