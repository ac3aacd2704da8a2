-- One row per type of a capture's environment state (`types[]`, in `position` order).
-- `bound_rule`/`bound_write_ordinal` are the type's `bound` (null: nothing bounds it);
-- `initial_order` is a JSON array of entity keys; `identity_source` `member` (migration 0008):
-- a member unique across the listed items identifies the type (issue 18).
CREATE TABLE state_types (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  collection TEXT NOT NULL,
  root_path TEXT NOT NULL,
  identity TEXT NOT NULL,
  identity_source TEXT NOT NULL CHECK (identity_source IN ('path', 'name', 'suffix', 'member')),
  order_source TEXT NOT NULL CHECK (order_source IN ('row', 'appearance')),
  bound_rule TEXT CHECK (bound_rule IN ('ES-8', 'ES-9', 'ES-27')),
  bound_write_ordinal INTEGER,
  initial_order TEXT NOT NULL,
  CHECK ((bound_rule IS NULL) = (bound_write_ordinal IS NULL)),
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
