-- One row per record of a capture whose state was computed: `is_initial` and the bound
-- (`initial_reads`), and the list pointer of its response body (`list_locations`, null
-- when its body holds no list). Serving reads these instead of evaluating the views.
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
