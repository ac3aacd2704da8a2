-- @rule   ES-6
-- @says   Which order a capture's timeline uses: start-time when every record has a start time, else record-order.
-- @grain  one row per capture with records
-- @reads  records_timeline
create view capture_timeline as
with timeline as (
  select capture_id, timeline_order, started_ms from records_timeline
),
final as (
  select capture_id,
         min(timeline_order) as timeline_order,
         count(*) as records,
         count(started_ms) as records_with_start
  from timeline
  group by capture_id
)
select * from final;
