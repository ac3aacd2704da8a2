-- 0002: one list per vocabulary (issue 13). The names the rules recognise — identity names
-- and their ranks, query-parameter roles, next-page tokens, item totals, safe methods — live
-- here once; the views join this table and TypeScript reads it (src/store/vocabulary.ts).
-- A change to a list is a new migration that edits these rows, never an edit of this file.

CREATE TABLE vocabulary (
  vocabulary TEXT NOT NULL CHECK (vocabulary IN (
    'identity', 'projection', 'pagination', 'ordering', 'random', 'next_token', 'item_total', 'page_total', 'safe_method')),
  name TEXT NOT NULL,
  rank INTEGER NOT NULL,
  PRIMARY KEY (vocabulary, name)
) STRICT, WITHOUT ROWID;

-- ES-11, OQ-9: identity names in priority order (rank 0 first), compared case-sensitively.
-- `key`, `slug` and `name` are never identity names.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('identity', 'id', 0), ('identity', 'uuid', 1), ('identity', 'uid', 2), ('identity', 'guid', 3), ('identity', '_id', 4);

-- OQ-13: query-parameter roles. A parameter's name is compared by its base — the part before
-- its first `[`, ASCII lower-cased (`page[number]` → page, `sort[0][field]` → sort; decisions,
-- ES-33) — so only bases are listed.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('projection', 'fields', 0), ('projection', 'select', 1), ('projection', '$select', 2);
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('pagination', 'page', 0), ('pagination', 'per_page', 1), ('pagination', 'perpage', 2), ('pagination', 'page_size', 3),
  ('pagination', 'pagesize', 4), ('pagination', 'limit', 5), ('pagination', 'offset', 6), ('pagination', 'skip', 7),
  ('pagination', 'start', 8), ('pagination', 'cursor', 9), ('pagination', 'after', 10), ('pagination', 'before', 11),
  ('pagination', '$top', 12), ('pagination', '$skip', 13), ('pagination', 'pagetoken', 14), ('pagination', 'page_token', 15),
  ('pagination', 'max_results', 16);
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('ordering', 'sort', 0), ('ordering', '_sort', 1), ('ordering', 'sort-column', 2), ('ordering', 'sort_column', 3),
  ('ordering', 'sortkey', 4), ('ordering', 'sort_by', 5), ('ordering', 'sortby', 6), ('ordering', 'order', 7),
  ('ordering', '_order', 8), ('ordering', 'orderby', 9), ('ordering', 'order_by', 10), ('ordering', '$orderby', 11),
  ('ordering', 'dir', 12), ('ordering', 'direction', 13), ('ordering', 'sortdir', 14), ('ordering', 'sort_dir', 15),
  ('ordering', 'sortorder', 16), ('ordering', 'sort_order', 17);
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('random', 'random', 0), ('random', 'rand', 1), ('random', 'shuffle', 2), ('random', 'seed', 3);

-- ES-35, OQ-24: next-page tokens and has-more flags, compared case-sensitively (a set one
-- means the list shows a page, not every entity).
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('next_token', 'next', 0), ('next_token', 'nextPageToken', 1), ('next_token', 'next_page_token', 2),
  ('next_token', 'nextCursor', 3), ('next_token', 'next_cursor', 4), ('next_token', 'nextPage', 5),
  ('next_token', 'next_page', 6), ('next_token', 'has_more', 7), ('next_token', 'hasMore', 8), ('next_token', 'hasNextPage', 9);

-- ES-36: an item total is a number whose name, lower-cased without `_` and `-`, contains an
-- `item_total` word (total, count and compounds such as totalCount, total_count) and no
-- `page_total` word (pageCount, totalPages count pages, not items).
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('item_total', 'total', 0), ('item_total', 'count', 1), ('page_total', 'page', 0);

-- Glossary (read tool), MCP-1: safe methods (RFC 9110 §9.2.1), compared upper-cased.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('safe_method', 'GET', 0), ('safe_method', 'HEAD', 1), ('safe_method', 'OPTIONS', 2), ('safe_method', 'TRACE', 3);
