-- One row per HAR `log.pages[]` entry.
CREATE TABLE page (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  position INTEGER NOT NULL,
  page_id TEXT NOT NULL,
  title TEXT,
  started_ms REAL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
