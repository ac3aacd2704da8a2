-- One row per admitted capture: the environment manifest's admission decision and its
-- inputs (ES-2, OQ-2, OQ-5). A capture the manifest rejects is not stored at all.
-- `subject_source` says how the subject was found (OQ-2 as revised; 0006 added `document`
-- and `override`). `override_json` is the user's `--manifest` override in canonical form (sorted keys,
-- rules in their order); `override_sha256` is its hash.
CREATE TABLE manifest (
  capture_id INTEGER PRIMARY KEY REFERENCES capture (id),
  subject_origin TEXT NOT NULL,
  subject_source TEXT NOT NULL CHECK (subject_source IN ('page', 'document', 'json-responses', 'all-responses', 'start-url', 'override')),
  api_base TEXT NOT NULL,
  api_base_source TEXT NOT NULL CHECK (api_base_source IN ('inferred', 'override')),
  override_json TEXT,
  override_sha256 TEXT
) STRICT;
