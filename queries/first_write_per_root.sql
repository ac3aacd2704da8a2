-- @rule   ES-8
-- @says   The first write under a type root, or any earlier write with a redacted URL, bounds that type's initial reads.
-- @grain  one row per (capture_id, root_path) that has a bounding write
-- @reads  writes, tool
create view first_write_per_root as
with roots as (
  select distinct capture_id, root_path from tool
),
candidates as (
  -- ES-8: a write bounds its own root; a write whose URL is redacted bounds every root.
  select r.capture_id, r.root_path, w.record_id, w.ordinal, w.timeline_position,
         w.started_ms, w.ended_ms, w.is_url_redacted
  from roots r
  join writes w on w.capture_id = r.capture_id
  where w.root_path = r.root_path or w.is_url_redacted = 1
),
ranked as (
  select c.*, row_number() over (partition by capture_id, root_path order by timeline_position) as rn
  from candidates c
),
final as (
  select capture_id, root_path, record_id as write_record_id, ordinal as write_ordinal,
         timeline_position as write_timeline_position, started_ms as write_started_ms,
         ended_ms as write_ended_ms, is_url_redacted as is_redacted_bound
  from ranked
  where rn = 1
)
select * from final;
