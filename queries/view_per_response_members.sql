-- @rule   ES-24
-- @says   A view names a member generated per response (ES-23) only when every concrete path it answers proves it on its own: the members per_response_members finds on each path of the view's successful initial reads (less its unchecked lines, ES-19), common to all of those paths. A collection's proof does not carry over to its item paths.
-- @grain  one row per (capture_id, tool, member_key)
-- @reads  initial_reads, record, unchecked_records, per_response_members
create view view_per_response_members as
with unchecked as materialized (
  select record_id from unchecked_records
),
answered as materialized (
  -- The concrete paths the view answers: its successful initial reads' paths.
  select distinct i.capture_id, i.tool, c.path
  from initial_reads i
  join record c on c.id = i.record_id
  where i.status between 200 and 299
    and i.record_id not in (select record_id from unchecked)
),
path_counts as (
  select capture_id, tool, count(*) as paths from answered group by capture_id, tool
),
proven as (
  select a.capture_id, a.tool, g.member_key, count(*) as paths
  from answered a
  join per_response_members g on g.capture_id = a.capture_id and g.path = a.path
  group by a.capture_id, a.tool, g.member_key
),
final as (
  select p.capture_id, p.tool, p.member_key
  from proven p
  join path_counts n on n.capture_id = p.capture_id and n.tool = p.tool
  where p.paths = n.paths
)
select * from final;
