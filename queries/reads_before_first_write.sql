-- @rule   ES-8
-- @says   Each read of a type is before, overlapping or after its type's first write: only reads that ended before that write started can be initial reads.
-- @grain  one row per admitted read record
-- @reads  read_records, first_write_per_root
create view reads_before_first_write as
with reads as (
  select * from read_records
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
