-- One row per document of a capture's environment state (`documents[]`, DOC-1..DOC-5);
-- `value` is the document's exact JSON text.
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
