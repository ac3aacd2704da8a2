-- One row per recorded exchange: a HAR entry, or a scenario transaction with a response
-- (OQ-3). `ordinal` is 1-based record order; times are epoch milliseconds. `tool_id` is
-- the manifest tool the record belongs to; NULL when the manifest did not admit it.
-- `redirect_state` (scenario captures, BS-61): `linked` to an observed predecessor,
-- `root` when the browser observed none, `unknown` otherwise; NULL for HAR.
CREATE TABLE record (
  id INTEGER PRIMARY KEY,
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  ordinal INTEGER NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  origin TEXT NOT NULL,
  path TEXT NOT NULL,
  query TEXT,
  is_url_redacted INTEGER NOT NULL CHECK (is_url_redacted IN (0, 1)),
  status INTEGER NOT NULL,
  status_text TEXT,
  http_version TEXT,
  started_ms REAL,
  duration_ms REAL NOT NULL,
  page_id TEXT,
  step_id TEXT,
  transaction_id TEXT,
  redirected_from_transaction_id TEXT,
  redirect_state TEXT CHECK (redirect_state IN ('linked', 'root', 'unknown')),
  resource_type TEXT,
  request_media_type TEXT,
  response_media_type TEXT,
  request_body_id INTEGER NOT NULL REFERENCES body (id),
  response_body_id INTEGER NOT NULL REFERENCES body (id),
  tool_id INTEGER REFERENCES tool (id),
  UNIQUE (capture_id, ordinal)
) STRICT;
-- A tool's records (serving, DESC-4's statuses, the state pass): one range each.
CREATE INDEX record_tool ON record (tool_id, status);
