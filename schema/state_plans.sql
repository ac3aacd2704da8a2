-- One row per read tool's plan (`plans[]`, ES-37, OQ-31). `record` plans carry `reason` and
-- `detail`; `document` plans `path` and `record_ordinal`; `item`/`list` plans their
-- `collection`, `pointer` (entity_pointer / list_pointer), `membership` (lists), and as
-- exact JSON text `view_facts` (the view's fields, required fields, projections, clock
-- formats, sorted arrays, shared envelope, in the plan's key order), `counters` and `lines`.
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
