-- One row per query key occurrence of a record's URL, in URL order, percent-decoded.
CREATE TABLE query_param (
  record_id INTEGER NOT NULL REFERENCES record (id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (record_id, position)
) STRICT, WITHOUT ROWID;
