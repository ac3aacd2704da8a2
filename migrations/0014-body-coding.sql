-- 0014: text bodies of 1 KiB or more are kept deflated where that saves an eighth (issue 14:
-- the store ≤ 2× its HAR; src/store/body-content.ts). `coding` says how `content` holds the
-- body: NULL as it is, 'deflate' a zlib stream of its UTF-8 bytes (RFC 1950, what SQLite's
-- sqlar_compress writes). Bodies already stored stay as they are. The search index over body
-- text now reads the `body_content` view, so it is dropped here and built again on the next
-- `capstate search`.
ALTER TABLE body ADD COLUMN coding TEXT CHECK (coding IS NULL OR coding = 'deflate');
DROP TABLE IF EXISTS search_body;
DELETE FROM meta WHERE key IN ('search_body_max_id', 'queries_sha256');
