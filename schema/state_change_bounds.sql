-- One row per type whose initial read a change across a write under another root ends
-- (ES-27): `write_ordinal` is that write, `detail` what changed. `initial_reads` reads it.
CREATE TABLE state_change_bounds (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  root_path TEXT NOT NULL,
  write_ordinal INTEGER NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (capture_id, root_path)
) STRICT, WITHOUT ROWID;
