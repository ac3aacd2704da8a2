-- 0005: the ES-27 change bounds and per-record decisions, stored (issues 13, 14). A change
-- seen across a write under another root ends a type's initial read at that write. Finding the change needs clock
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

-- Per record, what the rules decided that serving needs at once: whether it is an initial
-- read and what bounds its type (`initial_reads`), and where its body's list sits
-- (`list_locations`). Those views read every member of the store; serving starts from
-- these rows instead of evaluating them (issue 14: start-up in well under a second).
CREATE TABLE state_records (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  record_id INTEGER NOT NULL REFERENCES record (id),
  is_initial INTEGER NOT NULL CHECK (is_initial IN (0, 1)),
  bound_rule TEXT CHECK (bound_rule IN ('ES-8', 'ES-9', 'ES-27')),
  bound_ordinal INTEGER,
  list_pointer TEXT,
  CHECK ((bound_rule IS NULL) = (bound_ordinal IS NULL)),
  PRIMARY KEY (capture_id, record_id)
) STRICT, WITHOUT ROWID;
