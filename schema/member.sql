-- One row per JSON member of a usable (`json`) body, the root included (pointer '').
-- `pointer` is RFC 6901; `position` is the key order in an object or the array index;
-- `value` keeps scalars exact (STRICT ANY: "000123" stays text, 64-bit integers stay
-- integers); true/false are 1/0 with their type; containers and null have NULL.
CREATE TABLE member (
  body_id INTEGER NOT NULL REFERENCES body (id),
  pointer TEXT NOT NULL,
  parent_pointer TEXT,
  key TEXT,
  position INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  -- Comparisons, not IN (…): an IN list in a CHECK costs ~1 µs per inserted row (migration 0002).
  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'
    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),
  value ANY,
  PRIMARY KEY (body_id, pointer)
) STRICT, WITHOUT ROWID;
