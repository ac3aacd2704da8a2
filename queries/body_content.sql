-- @rule   none
-- @says   Each body's content as it was recorded: TEXT for UTF-8 bodies, BLOB for binary ones, inflated where the store keeps it deflated (body.coding = 'deflate'; issue 14), for `capstate sql`, exploring and tests. sqlar_uncompress is the sqlite3 shell's own function; capstate gives it to its connections too.
-- @grain  one row per body (id = body.id)
-- @reads  body
create view body_content as
select id, case when coding = 'deflate' then cast(sqlar_uncompress(content, bytes) as text) else content end as content
from body;
