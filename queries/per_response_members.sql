-- @rule   ES-23
-- @says   A top-level UUID or clock member is generated per response (a request id) when, over a concrete path's successful GET records (query ignored), there are at least three, every consecutive pair differs, and at least one consecutive pair has no write between them (OQ-18).
-- @grain  one row per (capture_id, concrete path, member key)
-- @reads  read_records, records_timeline, member_node, writes
create view per_response_members as
with gets as materialized (
  select r.capture_id, r.record_id, r.timeline_position, r.timeline_order, r.started_ms, r.ended_ms, r.response_body_id, t.path
  from read_records r
  join records_timeline t on t.record_id = r.record_id
  where upper(r.method) = 'GET' and r.status between 200 and 299
),
path_records as (
  select capture_id, path, count(*) as records from gets group by capture_id, path having count(*) >= 3
),
candidates as (
  -- OQ-18: a UUID, an RFC 3339 date-time, or a 10/13-digit epoch under a clock-like name.
  select g.capture_id, g.path, g.record_id, g.timeline_position, g.timeline_order, g.started_ms, g.ended_ms,
         m.key, cast(m.value as text) as value
  from gets g
  join path_records p on p.capture_id = g.capture_id and p.path = g.path
  cross join member_node o on o.body_id = g.response_body_id and o.parent = -1 and o.type = 'object' -- cross: in this order
  cross join member_node m on m.body_id = o.body_id and m.parent = o.node
  where (
      (m.type = 'string' and length(m.value) = 36 and lower(m.value) glob
        '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]')
      or (m.type = 'string' and m.value glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'
          and (m.value glob '*Z' or m.value glob '*[+-][0-9][0-9]:[0-9][0-9]'))
      or (m.type = 'integer' and length(cast(m.value as text)) in (10, 13)
          and (m.key glob '*at' or m.key glob '*At' or m.key glob '*time' or m.key glob '*Time' or m.key glob '*date'
               or m.key glob '*Date' or m.key glob '*ts' or m.key glob '*timestamp'))
    )
),
sequenced as (
  select c.*, lag(c.value) over w as prev_value, lag(c.ended_ms) over w as prev_ended_ms,
         lag(c.timeline_position) over w as prev_position
  from candidates c
  window w as (partition by c.capture_id, c.path, c.key order by c.timeline_position)
),
pairs as (
  select s.*,
         cast(exists (
           select 1 from writes w
           where w.capture_id = s.capture_id
             and case when s.timeline_order = 'record-order' or s.prev_ended_ms is null or w.started_ms is null
                      then w.timeline_position > s.prev_position and w.timeline_position < s.timeline_position
                      else w.started_ms > s.prev_ended_ms and w.started_ms < s.started_ms end
         ) as integer) as write_between
  from sequenced s
  where s.prev_position is not null
),
pair_counts as (
  -- Counted once per (path, member), not looked up per group.
  select capture_id, path, key,
         sum(case when value = prev_value then 1 else 0 end) as equal_pairs,
         sum(case when write_between = 0 then 1 else 0 end) as pairs_without_write
  from pairs
  group by capture_id, path, key
),
present as (
  select c.capture_id, c.path, c.key
  from candidates c
  join path_records p on p.capture_id = c.capture_id and p.path = c.path
  group by c.capture_id, c.path, c.key, p.records
  having count(*) = p.records
),
final as (
  -- present on every successful GET of the path, every consecutive pair differs, one pair has no write between
  select x.capture_id, x.path, x.key as member_key
  from present x
  left join pair_counts n on n.capture_id = x.capture_id and n.path = x.path and n.key = x.key
  where coalesce(n.equal_pairs, 0) = 0 and coalesce(n.pairs_without_write, 0) > 0
)
select * from final;
