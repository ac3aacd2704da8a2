-- One row per capture whose environment state a load (or `capstate migrate`) computed:
-- 'computed' with the SHA-256 of the state's compact exact JSON (the `sha256` the document
-- carries), or 'failed' with the CapstateError's code, message and context (JSON), e.g.
-- `budget-exceeded`. `queries_sha256` is the hash of queries/ it was computed from: when it
-- differs from the views', the state is stale and `capstate migrate` recomputes it.
-- `evidence` is the view's evidence object as exact JSON (ES-41). A capture with no row is
-- pending (issue 49): its facts are committed and its state not yet (its load is computing
-- it, or was killed first); readers say so, and the next load or `capstate migrate` stores it.
CREATE TABLE state_capture (
  capture_id INTEGER PRIMARY KEY REFERENCES capture (id),
  status TEXT NOT NULL CHECK (status IN ('computed', 'failed')),
  queries_sha256 TEXT NOT NULL,
  sha256 TEXT,
  timeline_order TEXT CHECK (timeline_order IN ('start-time', 'record-order')),
  evidence TEXT,
  error_code TEXT,
  error_message TEXT,
  error_context TEXT,
  CHECK ((status = 'computed') = (sha256 IS NOT NULL AND timeline_order IS NOT NULL AND evidence IS NOT NULL)),
  CHECK ((status = 'failed') = (error_code IS NOT NULL AND error_message IS NOT NULL))
) STRICT;
