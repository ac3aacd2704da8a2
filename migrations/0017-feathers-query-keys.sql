-- 0017 (issue 44): the query syntax Feathers services share (and the adapters written for it:
-- memory, knex, sequelize, mongoose, mongodb) joins OQ-13's vocabularies, "and similar
-- spellings": `$limit` is a page size beside OData's `$skip` (already an offset), and `$sort`
-- orders, spelled with the field in brackets and the direction as its value
-- (`$sort[createdAt]=-1`; src/model/plan/list-queries.ts reads that form). `$select` is
-- OQ-13's projection already. Measured on a Feathers 5 app recorded here
-- (bench/fidelity/feathers/): without these rows `$limit=5` read as a filter on a field
-- `$limit` and `$sort[id]=-1` as one on `$sort[id]`, so no list learned its window or order.
-- States stored before this migration keep their reading until `capstate migrate --recompute`.
INSERT INTO vocabulary (vocabulary, name, rank) VALUES
  ('pagination', '$limit', 22),
  ('window_size', '$limit', 9),
  ('ordering', '$sort', 18);
