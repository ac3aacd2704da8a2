-- One row per template parameter value of a record (OQ-1): `position` is the parameter's
-- order in its template, `value` the percent-decoded path segment (suffix removed).
CREATE TABLE path_param (
  record_id INTEGER NOT NULL REFERENCES record (id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (record_id, position)
) STRICT, WITHOUT ROWID;
