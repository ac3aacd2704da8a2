-- The recognised names of each vocabulary (migrations/0002-vocabulary.sql seeds the rows, 0007
-- adds the window and header names, 0008 the query-POST words, 0015 the cache-buster keys):
-- identity names with their OQ-9 rank, query-parameter roles by base name (OQ-13), next-page
-- tokens (OQ-24), item-total and page-total words (ES-36), safe methods; what a pagination key's
-- value means (window_*) and the header names of totals, next links and ranges; the words that
-- make a POST a query (OQ-7, issue 18); the query keys a client adds only to defeat caches
-- (`_=1712`, issue 44). Views join it; TypeScript reads it through src/store/vocabulary.ts.
CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method',
    'window_page', 'window_size', 'window_offset', 'window_end', 'total_header', 'next_header', 'range_header',
    'query_segment', 'query_suffix', 'query_method_prefix', 'query_area', 'cache_buster')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;
