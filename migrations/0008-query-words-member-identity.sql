-- 0008 (issue 18): the words that make a POST a query (OQ-7) join the vocabulary (and, at the
-- end, state_types takes the identity source `member`), so the
-- manifest reads them from the store instead of a pattern in code: OQ-7's last-segment names
-- (`query_segment`) and endings (`query_suffix`), and the RPC-style reads sent as POST —
-- method-name prefixes (`query_method_prefix`: `getCurrentUser`, `GetNavigationMenu2`,
-- `list_users`) and a path segment that names an area of reads (`query_area`:
-- `/api/users/queries/getCurrentUser`, gRPC-web's `/$rpc/…`). All compared lower-cased.
-- SQLite cannot alter a CHECK, so `vocabulary` is rebuilt as 0006 rebuilt `manifest`;
-- legacy_alter_table keeps the views that read `vocabulary` naming it.
PRAGMA legacy_alter_table = ON;
ALTER TABLE vocabulary RENAME TO vocabulary_0007;
CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method',
    'window_page', 'window_size', 'window_offset', 'window_end', 'total_header', 'next_header', 'range_header',
    'query_segment', 'query_suffix', 'query_method_prefix', 'query_area')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;
INSERT INTO vocabulary SELECT vocabulary, name, rank FROM vocabulary_0007 ORDER BY vocabulary, name;
DROP TABLE vocabulary_0007;
PRAGMA legacy_alter_table = OFF;

-- OQ-7: a POST whose last static segment is one of these names, or ends in a suffix, is a query.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('query_segment', 'search', 0), ('query_segment', '_search', 1), ('query_segment', 'query', 2), ('query_segment', 'find', 3),
  ('query_segment', 'lookup', 4), ('query_segment', 'filter', 5), ('query_segment', 'count', 6), ('query_segment', 'batchget', 7),
  ('query_segment', 'batch-get', 8), ('query_segment', 'graphql', 9);
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('query_suffix', 'search', 0), ('query_suffix', 'query', 1);
-- Issue 18: an RPC method name that starts with one of these verbs at a word boundary
-- (`getCurrentUser`, `GetNavigationMenu2`, `list_users`, `describe-instances`; not `listings`).
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('query_method_prefix', 'get', 0), ('query_method_prefix', 'list', 1), ('query_method_prefix', 'fetch', 2),
  ('query_method_prefix', 'read', 3), ('query_method_prefix', 'describe', 4);
-- Issue 18: a static segment anywhere in the path that names an area of reads.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('query_area', 'queries', 0), ('query_area', '$rpc', 1);

-- Issue 18: a type identified by a member unique across its listed items (no identity name,
-- no suffix name) says so: identity_source `member`. Rebuilt for the wider CHECK, rows kept.
PRAGMA legacy_alter_table = ON;
ALTER TABLE state_types RENAME TO state_types_0003;
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
INSERT INTO state_types SELECT * FROM state_types_0003 ORDER BY capture_id, position;
DROP TABLE state_types_0003;
PRAGMA legacy_alter_table = OFF;
