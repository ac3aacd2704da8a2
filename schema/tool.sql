-- One row per manifest tool: a method and a path template (OQ-1). Records point at their
-- tool through record.tool_id; a record of another origin has none (not admitted).
-- `ends_in_param`: the template's last segment is a parameter (an item template, glossary).
CREATE TABLE tool (
  id INTEGER PRIMARY KEY,
  capture_id INTEGER NOT NULL REFERENCES capture (id),
  name TEXT NOT NULL,
  method TEXT NOT NULL,
  template TEXT NOT NULL,
  root_path TEXT NOT NULL,
  is_query_post INTEGER NOT NULL CHECK (is_query_post IN (0, 1)),
  ends_in_param INTEGER NOT NULL CHECK (ends_in_param IN (0, 1)),
  template_source TEXT NOT NULL CHECK (template_source IN ('inferred', 'override')),
  UNIQUE (capture_id, name),
  UNIQUE (capture_id, method, template)
) STRICT;
