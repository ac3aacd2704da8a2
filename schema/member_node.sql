-- One row per JSON node of a usable (`json`) body, the root included (issue 14, member
-- layout v2). `node` is the node's number in its body (json_tree's id, or the JS
-- flattening's count in document order: parents before children, siblings in order; the
-- root is node 0);
-- `parent` is the parent's node, -1 for the root. `key` is the member name (TEXT) in an
-- object, the index (INTEGER) in an array, 0 for the root; with `parent` it is the key, so
-- a node's children are one range of it and a named member one lookup. `position` orders
-- siblings: the index of an array element, the node of an object member (a key, not a
-- rank: the `member` view ranks them), 0 for the root; `value` keeps
-- scalars exact (STRICT ANY: "000123" stays text, 64-bit integers stay integers);
-- true/false are 1/0 with their type; containers and null have NULL. `pointer` (RFC 6901)
-- is kept for objects and arrays only ('' for a container root): scalars' pointers are
-- their parent's plus their key (the `member` view, queries/member.sql). `depth` (the root
-- 0) is likewise kept for objects and arrays only (NULL for scalars, migration 0012): a
-- scalar's is its parent's plus one, which the `member` view gives. `type` and `position`
-- are worked out from the row when read (VIRTUAL, migration 0013): a scalar's type is its
-- value's; `shape` holds what a value cannot say (0 object, 1 array, 2 true, 3 false).
CREATE TABLE "member_node" (
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
-- A container by its pointer (a list, an entity, a wrapper), the way rule views enter a body.
CREATE INDEX member_node_pointer ON member_node (body_id, pointer) WHERE pointer IS NOT NULL;
