-- 0013: member_node's `type` and `position` are worked out from the row instead of stored
-- (issue 14: ~10 of a row's ~45 bytes; the store of the 50 MB bench capture 2.58 → ~2.3× the
-- HAR). A scalar's type is its value's (text → string, integer, real, NULL → null); `shape`
-- is stored only where the value cannot say it: 0 object, 1 array, 2 true, 3 false (0 and 1
-- take no bytes in SQLite's record format). `position` was already a key, not a rank
-- (migration 0009's note): the array index, the node for an object member, 0 for the root.
-- Both stay readable as columns (VIRTUAL, computed when read), so no view changes.
PRAGMA legacy_alter_table = ON;
CREATE TABLE member_node_0013 (
  body_id INTEGER NOT NULL REFERENCES body (id),
  parent INTEGER NOT NULL,
  key ANY NOT NULL,
  node INTEGER NOT NULL,
  depth INTEGER,
  shape INTEGER CHECK (shape = 0 OR shape = 1 OR shape = 2 OR shape = 3),
  value ANY,
  pointer TEXT,
  position INTEGER GENERATED ALWAYS AS (iif(parent = -1, 0, iif(typeof(key) = 'integer', key, node))) VIRTUAL,
  type TEXT GENERATED ALWAYS AS (CASE shape WHEN 0 THEN 'object' WHEN 1 THEN 'array' WHEN 2 THEN 'true' WHEN 3 THEN 'false'
    ELSE iif(typeof(value) = 'text', 'string', typeof(value)) END) VIRTUAL,
  PRIMARY KEY (body_id, parent, key)
) STRICT, WITHOUT ROWID;
INSERT INTO member_node_0013 (body_id, parent, key, node, depth, shape, value, pointer)
SELECT body_id, parent, key, node, depth,
  CASE type WHEN 'object' THEN 0 WHEN 'array' THEN 1 WHEN 'true' THEN 2 WHEN 'false' THEN 3 END, value, pointer
FROM member_node ORDER BY body_id, parent, key;
DROP TABLE member_node;
ALTER TABLE member_node_0013 RENAME TO member_node;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX member_node_pointer ON member_node (body_id, pointer) WHERE pointer IS NOT NULL;
DELETE FROM meta WHERE key = 'queries_sha256';
