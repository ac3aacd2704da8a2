-- @rule   ES-8
-- @says   A type's initial reads are its reads that ended before its bound: the first write under its root (ES-8), the earliest POST elsewhere that created one of its entities (ES-9), or the write across which the state pass saw the type change (ES-27, stored in state_change_bounds; issue 18: or the first read showing an entity a 404 proved absent, with no recorded write between), whichever comes first; reads overlapping the bound are excluded.
-- @grain  one row per initial read record
-- @reads  read_records, first_write_per_root, post_created_ids, records_timeline, state_change_bounds
create view initial_reads as
with reads as (
  select * from read_records
),
bounds as materialized (
  select capture_id, root_path, write_timeline_position as bound_position, write_started_ms as bound_started_ms,
         write_ended_ms as bound_ended_ms, write_ordinal as bound_ordinal, 'ES-8' as bound_rule
  from first_write_per_root
  union all
  select capture_id, root_path, post_timeline_position, post_started_ms, post_ended_ms, post_ordinal, 'ES-9'
  from post_created_ids
  union all
  select c.capture_id, c.root_path, w.timeline_position, w.started_ms, w.ended_ms, w.ordinal, 'ES-27'
  from state_change_bounds c
  -- Issue 18: an absence bound sits at the read that first shows an entity a 404 proved absent,
  -- so the bound's record is any timeline record (a write for every other ES-27 bound).
  join records_timeline w on w.capture_id = c.capture_id and w.ordinal = c.write_ordinal
),
first_bound as (
  select * from (
    select b.*, row_number() over (partition by capture_id, root_path order by bound_position) as rn from bounds b
  ) as ranked where rn = 1
),
classified as (
  select d.*, b.bound_ordinal, b.bound_rule,
         case
           when b.bound_position is null then 1
           when d.timeline_order = 'record-order' then cast(d.timeline_position < b.bound_position as integer)
           else cast(d.ended_ms < b.bound_started_ms as integer)
         end as is_initial
  from reads d
  left join first_bound b on b.capture_id = d.capture_id and b.root_path = d.root_path
),
final as (
  select capture_id, record_id, ordinal, timeline_position, tool_id, tool, root_path, method, status,
         response_body_id, bound_ordinal, bound_rule
  from classified
  where is_initial = 1
)
select * from final;
