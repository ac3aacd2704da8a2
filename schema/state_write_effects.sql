-- One row per write tool of a capture's environment state: verified with its effect (create, merge, replace, remove, …) or replayed with why (`evidence.write_effects`).
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
