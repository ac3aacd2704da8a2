-- 0001: the initial fact tables (see schema/ for one file per table).

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

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

CREATE TABLE page (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  position INTEGER NOT NULL,
  page_id TEXT NOT NULL,
  title TEXT,
  started_ms REAL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE body (
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('none', 'base64', 'cut', 'json', 'text')),
  is_usable INTEGER NOT NULL CHECK (is_usable IN (0, 1)),
  unusable_reason TEXT,
  content ANY
) STRICT;
CREATE UNIQUE INDEX body_identity ON body (sha256, kind, ifnull(unusable_reason, ''));

CREATE TABLE tool (
  id INTEGER PRIMARY KEY,
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  name TEXT NOT NULL,
  method TEXT NOT NULL,
  template TEXT NOT NULL,
  root_path TEXT NOT NULL,
  is_query_post INTEGER NOT NULL CHECK (is_query_post IN (0, 1)),
  ends_in_param INTEGER NOT NULL CHECK (ends_in_param IN (0, 1)),
  template_source TEXT NOT NULL CHECK (template_source IN ('inferred', 'override')),
  UNIQUE (capture_id, name),
  UNIQUE (capture_id, method, template)
) STRICT;

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

CREATE TABLE query_param (
  record_id INTEGER NOT NULL REFERENCES record (id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (record_id, position)
) STRICT, WITHOUT ROWID;

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

CREATE TABLE member (
  body_id INTEGER NOT NULL REFERENCES body (id),
  pointer TEXT NOT NULL,
  parent_pointer TEXT,
  key TEXT,
  position INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('object', 'array', 'string', 'integer', 'real', 'true', 'false', 'null')),
  value ANY,
  PRIMARY KEY (body_id, pointer)
) STRICT, WITHOUT ROWID;

CREATE TABLE manifest (
  capture_id INTEGER PRIMARY KEY REFERENCES capture (id),
  subject_origin TEXT NOT NULL,
  subject_source TEXT NOT NULL CHECK (subject_source IN ('page', 'json-responses', 'all-responses', 'start-url')),
  api_base TEXT NOT NULL,
  api_base_source TEXT NOT NULL CHECK (api_base_source IN ('inferred', 'override')),
  override_json TEXT,
  override_sha256 TEXT
) STRICT;

CREATE TABLE admission_note (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  position INTEGER NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;

CREATE TABLE path_param (
  record_id INTEGER NOT NULL REFERENCES record (id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (record_id, position)
) STRICT, WITHOUT ROWID;
