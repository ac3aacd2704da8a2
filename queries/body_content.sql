-- @rule   none
-- @says   Each body's content as it was recorded: TEXT for UTF-8 bodies, BLOB for binary ones, for `capstate sql`, exploring, tests and the search index (`search_body`). Plain SQL, read the same by every SQLite client (issue 46: no body is kept deflated since migration 0016).
-- @grain  one row per body (id = body.id)
-- @reads  body
create view body_content as
select id, content
from body;
