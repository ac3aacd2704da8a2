-- 0007 (issue 18): lists that are windows, and the names that say so. A list read is a
-- window when its query names a pagination key (OQ-13's `pagination` rows, to which
-- json-server's `_page`, `_limit`, `_start`, `_end`, `_per_page` are added), and a page when
-- a response header counts more items than it lists or points at a next page (ES-35/36
-- read headers too). What each pagination key means for serving a window — a page number,
-- a page size, an offset, an end — and the header names are new vocabularies, so
-- `vocabulary`'s CHECK is rebuilt as 0006 rebuilt `manifest`.
PRAGMA legacy_alter_table = ON;
ALTER TABLE vocabulary RENAME TO vocabulary_0002;
CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method',
    'window_page', 'window_size', 'window_offset', 'window_end', 'total_header', 'next_header', 'range_header')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;
INSERT INTO vocabulary SELECT vocabulary, name, rank FROM vocabulary_0002 ORDER BY vocabulary, name;
DROP TABLE vocabulary_0002;
PRAGMA legacy_alter_table = OFF;

-- OQ-13: json-server's underscore spellings are pagination keys (base names, lower-cased).
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('pagination', '_page', 17), ('pagination', '_limit', 18), ('pagination', '_start', 19), ('pagination', '_end', 20),
  ('pagination', '_per_page', 21);

-- What a pagination key's value means, for rendering a window from state (issue 16): a
-- 1-based page number, a page size, a 0-based offset, an exclusive end. Keys not listed
-- here (`cursor`, `after`, page tokens) are opaque: a window they name is replayed.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('window_page', 'page', 0), ('window_page', '_page', 1),
  ('window_size', 'per_page', 0), ('window_size', 'perpage', 1), ('window_size', 'page_size', 2), ('window_size', 'pagesize', 3),
  ('window_size', 'limit', 4), ('window_size', '_limit', 5), ('window_size', '_per_page', 6), ('window_size', '$top', 7),
  ('window_size', 'max_results', 8),
  ('window_offset', 'offset', 0), ('window_offset', 'skip', 1), ('window_offset', 'start', 2), ('window_offset', '_start', 3),
  ('window_offset', '$skip', 4),
  ('window_end', '_end', 0);

-- ES-35/36 in headers, names compared lower-cased: an item total (`X-Total-Count: 100`), a
-- link header whose `rel="next"` points at a next page, and a `Content-Range` whose
-- complete length (`items 0-9/100`) is the item total.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('total_header', 'x-total-count', 0), ('total_header', 'x-total', 1), ('total_header', 'total-count', 2),
  ('next_header', 'link', 0),
  ('range_header', 'content-range', 0);
