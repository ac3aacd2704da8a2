-- One row per distinct retained body and its classification (ES-4, DESC-6, OQ-33).
-- `content` holds exactly the bytes `sha256` was computed over, as recorded: TEXT for UTF-8
-- kinds, BLOB for binary. `coding` is NULL on every row: from issue 14 until migration 0016
-- (issue 46) it said 'deflate' for text bodies kept as a zlib stream, which only the sqlite3
-- shell could read; 0016 inflated them. `none` is the empty body; every record points at a
-- body row.
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
