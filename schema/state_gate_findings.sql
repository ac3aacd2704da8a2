-- One row per finding of the minimal write gate (`gate_findings[]`, OQ-20).
CREATE TABLE state_gate_findings (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  finding TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
