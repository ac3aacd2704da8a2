-- One row per JSON node of a usable (`json`) body, the root included (issue 14, member
-- layout v2). `node` is the node's number in its body (json_tree's id, or the JS
-- flattening's count in document order: parents before children, siblings in order; the
-- root is node 0);
-- `parent` is the parent's node, -1 for the root. `key` is the member name (TEXT) in an
-- object, the index (INTEGER) in an array, 0 for the root; with `parent` it is the key, so
-- a node's children are one range of it and a named member one lookup. `position` orders
-- siblings: the index of an array element, the node of an object member (a key, not a
-- rank: the `member` view ranks them; stores migrated by 0009 keep ranks, the same order),
-- 0 for the root; `value` keeps
-- scalars exact (STRICT ANY: "000123" stays text, 64-bit integers stay integers);
-- true/false are 1/0 with their type; containers and null have NULL. `pointer` (RFC 6901)
-- is kept for objects and arrays only ('' for a container root): scalars' pointers are
-- their parent's plus their key (the `member` view, queries/member.sql). `depth` (the root
-- 0) is likewise kept for objects and arrays only (NULL for scalars, migration 0012): a
-- scalar's is its parent's plus one, which the `member` view gives.
CREATE TABLE "member_node" (
  body_id INTEGER NOT NULL REFERENCES body (id),
  parent INTEGER NOT NULL,
  key ANY NOT NULL,
  node INTEGER NOT NULL,
  position INTEGER NOT NULL,
  depth INTEGER,
  -- Comparisons, not IN (…): an IN list in a CHECK costs ~1 µs per inserted row (migration 0004).
  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'
    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),
  value ANY,
  pointer TEXT,
  PRIMARY KEY (body_id, parent, key)
) STRICT, WITHOUT ROWID;
-- A container by its pointer (a list, an entity, a wrapper), the way rule views enter a body.
CREATE INDEX member_node_pointer ON member_node (body_id, pointer) WHERE pointer IS NOT NULL;
