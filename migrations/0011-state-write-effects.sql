-- 0011 (issue 16, ES-41 extended): each write tool's verified effect, stored with the state.
-- The load checks the capture's writes (check-effects' verified set) once, after the state
-- rows are written and in the same transaction; serving looks the effect up instead of
-- replaying the capture at its first write call. One row per write tool of a computed state;
-- a capture whose state was computed before this migration has none, and serving checks its
-- writes as before.
CREATE TABLE state_write_effects (
  capture_id INTEGER NOT NULL REFERENCES state_capture (capture_id),
  position INTEGER NOT NULL,
  tool TEXT NOT NULL,
  verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
  effect TEXT,
  reason TEXT,
  CHECK ((verified = 1) = (effect IS NOT NULL)),
  CHECK ((verified = 0) = (reason IS NOT NULL)),
  PRIMARY KEY (capture_id, position)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX state_write_effects_by_tool ON state_write_effects (capture_id, tool);
