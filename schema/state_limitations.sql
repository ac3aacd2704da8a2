-- One row per limitation of a capture's environment state (`limitations[]`).
CREATE TABLE state_limitations (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  limitation TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
