-- Store bookkeeping: `queries_sha256` is the hash of queries/ the views were built from.
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
