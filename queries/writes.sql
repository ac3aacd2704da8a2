-- @rule   ES-8
-- @says   A write is an admitted POST, PUT, PATCH or DELETE that is not a query POST (OQ-7, OQ-8), whatever its status.
-- @grain  one row per write record
-- @reads  records_timeline, record, tool
create view writes as
with timeline as (
  select capture_id, record_id, ordinal, timeline_position, timeline_order, started_ms, ended_ms, is_url_redacted
  from records_timeline
),
records as (
  select id as record_id, method, status, tool_id from record
),
tools as (
  select id as tool_id, name as tool, root_path, is_query_post from tool
),
final as (
  select t.capture_id, t.record_id, t.ordinal, t.timeline_position, t.timeline_order,
         r.method, r.status, o.tool, o.root_path, t.started_ms, t.ended_ms, t.is_url_redacted
  from timeline t
  join records r on r.record_id = t.record_id
  join tools o on o.tool_id = r.tool_id
  where upper(r.method) in ('POST', 'PUT', 'PATCH', 'DELETE')
    and o.is_query_post = 0
)
select * from final;
