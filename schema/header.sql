-- One row per recorded header or cookie, in producer order. Credential values never
-- reach the store: `value` is NULL and `is_redacted` 1 (BS-65, issue 2 "Secrets").
CREATE TABLE header (
  record_id INTEGER NOT NULL REFERENCES record (id),
  side TEXT NOT NULL CHECK (side IN ('request', 'response')),
  source TEXT NOT NULL CHECK (source IN ('header', 'cookie')),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT,
  is_redacted INTEGER NOT NULL CHECK (is_redacted IN (0, 1)),
  PRIMARY KEY (record_id, side, source, position)
) STRICT, WITHOUT ROWID;
