-- @rule   ES-8
-- @says   Each read of a type is before, overlapping or after its type's first write: only reads that ended before that write started can be initial reads.
-- @grain  one row per admitted read record (GET, HEAD, OPTIONS, TRACE or query POST)
-- @reads  records_timeline, record, tool, first_write_per_root
create view reads_before_first_write as
with timeline as (
  select capture_id, record_id, ordinal, timeline_position, timeline_order, started_ms, ended_ms
  from records_timeline
),
reads as (
  select t.*, r.method, r.status, o.name as tool, o.root_path
  from timeline t
  join record r on r.id = t.record_id
  join tool o on o.id = r.tool_id
  where upper(r.method) in ('GET', 'HEAD', 'OPTIONS', 'TRACE')
     or (upper(r.method) = 'POST' and o.is_query_post = 1)
),
classified as (
  select d.*, b.write_ordinal, b.is_redacted_bound,
         case
           when b.write_record_id is null then 'unbounded'
           -- Record order: "before" is earlier in record order; there is no overlap test.
           when d.timeline_order = 'record-order' then
             case when d.timeline_position < b.write_timeline_position then 'before' else 'after' end
           -- Start-time order: closed intervals [start, start + duration] (OQ-8 Reading).
           when d.ended_ms < b.write_started_ms then 'before'
           when d.started_ms <= b.write_ended_ms and b.write_started_ms <= d.ended_ms then 'overlaps'
           else 'after'
         end as position_to_bound
  from reads d
  left join first_write_per_root b on b.capture_id = d.capture_id and b.root_path = d.root_path
),
final as (
  select capture_id, record_id, ordinal, timeline_position, tool, root_path, method, status,
         position_to_bound, write_ordinal, is_redacted_bound
  from classified
)
select * from final;
