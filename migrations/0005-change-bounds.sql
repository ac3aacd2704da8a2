-- 0005: the ES-27 change bounds, stored (issue 13). A change seen across a write under
-- another root ends a type's initial read at that write. Finding the change needs clock
-- spellings (ES-29/OQ-21), which SQL cannot read, so the state pass finds it
-- (src/state/changes.ts) and stores it here; `initial_reads` joins these rows, so the file's
-- view, serving's replay and `capstate state` agree on which reads are initial.
CREATE TABLE state_change_bounds (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  root_path TEXT NOT NULL,
  write_ordinal INTEGER NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (capture_id, root_path)
) STRICT, WITHOUT ROWID;
