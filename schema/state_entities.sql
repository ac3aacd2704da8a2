-- One row per entity of a capture's environment state (`entities[]`, in `position` order).
-- `entity_key` is the entity's `id`; `value` its merged value as exact JSON text (ES-26);
-- `view_values` (JSON object: per tool, the fields that view shows differently, OQ-19);
-- `record_ordinals` (JSON array) the records it was observed in.
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
