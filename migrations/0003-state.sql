-- 0003: the environment state, stored (issue 13; DESIGN "one truth, stored"). A load
-- computes each capture's state in its own transaction and writes it here; `capstate state
-- --json` is a rendering of these rows. Nested parts of the view are exact JSON text
-- (readable with stock sqlite3 and its json_* functions); lists keep their order in
-- `position`. See schema/state_*.sql for one file per table.

CREATE TABLE state_capture (
  capture_id INTEGER PRIMARY KEY REFERENCES capture (id),
  status TEXT NOT NULL CHECK (status IN ('computed', 'failed')),
  queries_sha256 TEXT NOT NULL,
  sha256 TEXT,
  timeline_order TEXT CHECK (timeline_order IN ('start-time', 'record-order')),
  evidence TEXT,
  error_code TEXT,
  error_message TEXT,
  error_context TEXT,
  CHECK ((status = 'computed') = (sha256 IS NOT NULL AND timeline_order IS NOT NULL AND evidence IS NOT NULL)),
  CHECK ((status = 'failed') = (error_code IS NOT NULL AND error_message IS NOT NULL))
) STRICT;

CREATE TABLE state_types (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  collection TEXT NOT NULL,
  root_path TEXT NOT NULL,
  identity TEXT NOT NULL,
  identity_source TEXT NOT NULL CHECK (identity_source IN ('path', 'name', 'suffix')),
  order_source TEXT NOT NULL CHECK (order_source IN ('row', 'appearance')),
  bound_rule TEXT CHECK (bound_rule IN ('ES-8', 'ES-9', 'ES-27')),
  bound_write_ordinal INTEGER,
  initial_order TEXT NOT NULL,
  CHECK ((bound_rule IS NULL) = (bound_write_ordinal IS NULL)),
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE state_entities (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  collection TEXT NOT NULL,
  entity_key TEXT NOT NULL,
  value TEXT NOT NULL,
  view_values TEXT NOT NULL,
  state_order INTEGER NOT NULL,
  record_ordinals TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT;
CREATE INDEX state_entities_by_key ON state_entities (capture_id, collection, entity_key);

CREATE TABLE state_documents (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  tool TEXT NOT NULL,
  path TEXT NOT NULL,
  query TEXT,
  status INTEGER NOT NULL,
  value TEXT NOT NULL,
  record_ordinal INTEGER NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT;

CREATE TABLE state_plans (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  tool TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('item', 'list', 'document', 'record')),
  reason TEXT,
  detail TEXT,
  collection TEXT,
  pointer TEXT,
  membership TEXT CHECK (membership IN ('all', 'recorded')),
  path TEXT,
  record_ordinal INTEGER,
  view_facts TEXT,
  counters TEXT,
  lines TEXT,
  CHECK ((kind = 'record') = (reason IS NOT NULL AND detail IS NOT NULL)),
  CHECK ((kind IN ('item', 'list')) = (collection IS NOT NULL AND pointer IS NOT NULL AND view_facts IS NOT NULL AND counters IS NOT NULL AND lines IS NOT NULL)),
  CHECK ((kind = 'document') = (path IS NOT NULL AND record_ordinal IS NOT NULL)),
  CHECK ((kind = 'list') = (membership IS NOT NULL)),
  PRIMARY KEY (capture_id, position)
) STRICT;
CREATE INDEX state_plans_by_tool ON state_plans (capture_id, tool);

CREATE TABLE state_limitations (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  limitation TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE state_gate_findings (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  finding TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
