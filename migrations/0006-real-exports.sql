-- 0006 (issue 17): what the loader normalised in a capture (producer quirks), and the
-- subject sources of the revised OQ-2: `document` (the final document of the first
-- text/html exchange, when no page names a URL) and `override` (`--manifest` names
-- `subject_origin`). SQLite cannot alter a CHECK, so `manifest` is rebuilt as 0004 rebuilt
-- `member`; legacy_alter_table keeps the views that read `manifest` naming it.
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
PRAGMA legacy_alter_table = ON;
ALTER TABLE manifest RENAME TO manifest_0001;
CREATE TABLE manifest (
  capture_id INTEGER PRIMARY KEY REFERENCES capture (id),
  subject_origin TEXT NOT NULL,
  subject_source TEXT NOT NULL CHECK (subject_source IN ('page', 'document', 'json-responses', 'all-responses', 'start-url', 'override')),
  api_base TEXT NOT NULL,
  api_base_source TEXT NOT NULL CHECK (api_base_source IN ('inferred', 'override')),
  override_json TEXT,
  override_sha256 TEXT
) STRICT;
INSERT INTO manifest SELECT capture_id, subject_origin, subject_source, api_base, api_base_source, override_json, override_sha256 FROM manifest_0001 ORDER BY capture_id;
DROP TABLE manifest_0001;
PRAGMA legacy_alter_table = OFF;
