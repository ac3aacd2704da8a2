-- @rule   DESC-4
-- @says   A manifest tool's recorded statuses are the distinct response statuses of its records; the manifest tool owns this set. A request that got no response (HAR status 0 or -1: failed or aborted) has no status.
-- @grain  one row per (tool, status)
-- @reads  tool, record
create view tool_statuses as
with tools as (
  select id as tool_id, capture_id, name as tool from tool
),
records as (
  select tool_id, status from record where tool_id is not null and status > 0
),
final as (
  select t.capture_id, t.tool_id, t.tool, r.status, count(*) as records
  from tools t
  join records r on r.tool_id = t.tool_id
  group by t.capture_id, t.tool_id, t.tool, r.status
)
select * from final;
