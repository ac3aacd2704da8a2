-- One row per admission note of a capture's manifest (e.g. records of other origins).
CREATE TABLE admission_note (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  position INTEGER NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
