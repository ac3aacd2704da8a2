-- @rule   ES-6
-- @says   Admitted records only: the primary-source records (the manifest gave them a tool, OQ-3), in timeline order: by start time with ties in record order, or by record order for the whole capture when any of them lacks a start time. Records the manifest did not admit (other origins, static files) are in `record` alone (`tool_id` NULL).
-- @grain  one row per admitted record (record.tool_id not null), not one per record
-- @reads  record
create view records_timeline as
with records as (
  select id as record_id, capture_id, ordinal, method, url, path, query, status,
         started_ms, duration_ms, is_url_redacted
  from record
  where tool_id is not null -- OQ-3: records of other origins are not primary-source records
),
capture_basis as (
  -- ES-6: one missing start time switches the whole capture to record order (OQ-6).
  select capture_id,
         case when count(started_ms) = count(*) then 'start-time' else 'record-order' end as timeline_order
  from records
  group by capture_id
),
ordered as (
  select r.*,
         b.timeline_order,
         row_number() over (
           partition by r.capture_id
           order by case when b.timeline_order = 'start-time' then r.started_ms end, r.ordinal
         ) as timeline_position
  from records r
  join capture_basis b on b.capture_id = r.capture_id
),
final as (
  select capture_id, timeline_position, ordinal, record_id, timeline_order, method, url, path, query,
         status, started_ms, duration_ms,
         case when started_ms is null then null else started_ms + duration_ms end as ended_ms,
         is_url_redacted
  from ordered
)
select * from final;
