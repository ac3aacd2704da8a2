-- The recognised names of each vocabulary (migrations/0002-vocabulary.sql seeds the rows, 0007 adds the query-POST words):
-- identity names with their OQ-9 rank, query-parameter roles by base name (OQ-13), next-page
-- tokens (OQ-24), item-total and page-total words (ES-36), safe methods, the words that make a
-- POST a query (OQ-7, issue 18). Views join it;
-- TypeScript reads it through src/store/vocabulary.ts.
CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method',
    'query_segment', 'query_suffix', 'query_method_prefix', 'query_area')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;
