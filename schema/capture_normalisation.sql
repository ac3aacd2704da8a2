-- One row per kind of producer quirk the loader normalised in a capture (issue 17,
-- src/load/quirks.ts): `quirk` names it, `field` the HAR field (`request.headers[].value`,
-- `log.pages`), `records` how many records had it (0 for the capture's root), `first_record`
-- the first such record's ordinal, `note` what was done.
CREATE TABLE capture_normalisation (
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  position INTEGER NOT NULL,
  quirk TEXT NOT NULL,
  field TEXT NOT NULL,
  records INTEGER NOT NULL,
  first_record INTEGER,
  note TEXT NOT NULL,
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
