-- 0015 (issue 44): cache-buster query keys join the vocabulary (`cache_buster`). A client that
-- must not get a cached answer adds a key the app never reads: jQuery's `cache: false` adds
-- `_=<timestamp>`, other libraries `_t`, `_ts`, `nocache`, `cachebust`, `cachebuster`. Apps
-- answer the call as without it (json-server 0.17 and 1.0, Alertmanager, Redmine), so serving
-- ignores such a key where no learned convention explains it and says so (`ignored-key`;
-- src/model/served/cache-busters.ts). Compared exactly as spelled: the names are what the
-- libraries send, and a wider match could ignore a key that is the app's own.
-- SQLite cannot alter a CHECK, so `vocabulary` is rebuilt as 0008 rebuilt it;
-- legacy_alter_table keeps the views that read `vocabulary` naming it.
PRAGMA legacy_alter_table = ON;
ALTER TABLE vocabulary RENAME TO vocabulary_0014;
CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method',
    'window_page', 'window_size', 'window_offset', 'window_end', 'total_header', 'next_header', 'range_header',
    'query_segment', 'query_suffix', 'query_method_prefix', 'query_area', 'cache_buster')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;
INSERT INTO vocabulary SELECT vocabulary, name, rank FROM vocabulary_0014 ORDER BY vocabulary, name;
DROP TABLE vocabulary_0014;
PRAGMA legacy_alter_table = OFF;

INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('cache_buster', '_', 0), ('cache_buster', '_t', 1), ('cache_buster', '_ts', 2), ('cache_buster', 'nocache', 3),
  ('cache_buster', 'cachebust', 4), ('cache_buster', 'cachebuster', 5);
