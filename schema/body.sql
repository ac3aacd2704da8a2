-- One row per distinct retained body and its classification (ES-4, DESC-6, OQ-33).
-- `content` holds exactly the bytes `sha256` was computed over: TEXT for UTF-8 kinds,
-- BLOB for binary. `none` is the empty body; every record points at a body row.
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
