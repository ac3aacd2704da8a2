-- One row per loaded capture file. The file's SHA-256 identifies it: loading the same
-- bytes again is a no-op (docs/decisions.md, "Loading the same capture twice").
CREATE TABLE capture (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL UNIQUE,
  bytes INTEGER NOT NULL,
  format TEXT NOT NULL CHECK (format IN ('har', 'scenario-evidence')),
  format_version TEXT,
  creator TEXT,
  start_url TEXT,
  request_bodies_selected INTEGER,
  response_bodies_selected INTEGER,
  header_values_selected INTEGER,
  loaded_at TEXT NOT NULL
) STRICT;
