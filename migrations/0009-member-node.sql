-- 0009: member layout v2 (issue 14). Members move from `member` (keyed by the text pointer,
-- a pointer and a parent pointer per row) to `member_node`, keyed by (body_id, parent, key)
-- with integer node ids and a pointer for objects and arrays only: 5× cheaper to write and
-- 45% fewer bytes (bench/README.md, "The three costs, measured apart"). `member` becomes a
-- view over it with the same eight columns (queries/member.sql).
CREATE TABLE member_node (
  body_id INTEGER NOT NULL REFERENCES body (id),
  parent INTEGER NOT NULL,
  key ANY NOT NULL,
  node INTEGER NOT NULL,
  position INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'
    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),
  value ANY,
  pointer TEXT,
  PRIMARY KEY (body_id, parent, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX member_node_pointer ON member_node (body_id, pointer) WHERE pointer IS NOT NULL;
-- The stored members, numbered in document order per body (a loaded body's node numbers
-- are json_tree's ids or the JS flattening's count, both in document order): each node's
-- sort key is its ancestors' positions and its own, ten digits each, walked down from the
-- root through a temporary index on the parent pointer.
CREATE INDEX member_0006_parent ON member (body_id, parent_pointer, position);
CREATE TEMP TABLE member_0006_order (
  body_id INTEGER NOT NULL,
  pointer TEXT NOT NULL,
  node INTEGER NOT NULL,
  PRIMARY KEY (body_id, pointer)
) STRICT, WITHOUT ROWID;
WITH RECURSIVE walk (body_id, pointer, sort_key) AS (
  SELECT body_id, pointer, '' FROM member WHERE depth = 0
  UNION ALL
  SELECT m.body_id, m.pointer, w.sort_key || printf('%010d', m.position)
  FROM walk w JOIN member m ON m.body_id = w.body_id AND m.parent_pointer = w.pointer
)
INSERT INTO member_0006_order (body_id, pointer, node)
SELECT body_id, pointer, row_number() OVER (PARTITION BY body_id ORDER BY sort_key) - 1 FROM walk;
-- Root: parent -1, key 0; array elements: key = index; object members: key = name.
INSERT INTO member_node (body_id, parent, key, node, position, depth, type, value, pointer)
SELECT m.body_id, ifnull(p.node, -1), ifnull(m.key, m.position), o.node, m.position, m.depth, m.type, m.value,
  iif(m.type = 'object' OR m.type = 'array', m.pointer, NULL)
FROM member m
JOIN member_0006_order o ON o.body_id = m.body_id AND o.pointer = m.pointer
LEFT JOIN member_0006_order p ON p.body_id = m.body_id AND p.pointer = m.parent_pointer
ORDER BY m.body_id, ifnull(p.node, -1), ifnull(m.key, m.position);
DROP TABLE member_0006_order;
DROP TABLE member;
-- The views read `member` as a table; have the next write open rebuild them all (the view
-- `member` among them) whatever the stored hash says.
DELETE FROM meta WHERE key = 'queries_sha256';
