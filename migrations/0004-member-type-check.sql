-- 0004: the member table's type check as a chain of comparisons instead of an IN list.
-- Same rule (the same eight types), but SQLite evaluates `type IN (…)` in a CHECK through
-- an ephemeral lookup table on every inserted row, which cost about 1 µs a row, as much as
-- the insert itself (bench/README.md, "Ingest"); the comparisons cost next to nothing.
-- SQLite cannot alter a CHECK, so the table is rebuilt. legacy_alter_table keeps the rename
-- from rewriting (or, with the old name gone, refusing over) the views that read `member`:
-- they keep naming `member`, which exists again once the new table is created.
PRAGMA legacy_alter_table = ON;
ALTER TABLE member RENAME TO member_0001;
CREATE TABLE member (
  body_id INTEGER NOT NULL REFERENCES body (id),
  pointer TEXT NOT NULL,
  parent_pointer TEXT,
  key TEXT,
  position INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'
    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),
  value ANY,
  PRIMARY KEY (body_id, pointer)
) STRICT, WITHOUT ROWID;
INSERT INTO member SELECT body_id, pointer, parent_pointer, key, position, depth, type, value FROM member_0001 ORDER BY body_id, pointer;
DROP TABLE member_0001;
PRAGMA legacy_alter_table = OFF;
