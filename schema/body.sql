-- One row per distinct retained body and its classification (ES-4, DESC-6, OQ-33).
-- `content` holds exactly the bytes `sha256` was computed over: TEXT for UTF-8 kinds,
-- BLOB for binary; or, where `coding` is 'deflate' (a text body of 1 KiB or more that
-- deflating makes an eighth smaller, issue 14), those bytes as a zlib stream (RFC 1950,
-- what SQLite's sqlar_compress writes). The `body_content` view gives every body's bytes as
-- they were. `none` is the empty body; every record points at a body row.
CREATE TABLE body (
  id INTEGER PRIMARY KEY,
  sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('none', 'base64', 'cut', 'json', 'text')),
  is_usable INTEGER NOT NULL CHECK (is_usable IN (0, 1)),
  unusable_reason TEXT,
  content ANY,
  coding TEXT CHECK (coding IS NULL OR coding = 'deflate')
) STRICT;
CREATE UNIQUE INDEX body_identity ON body (sha256, kind, ifnull(unusable_reason, ''));
