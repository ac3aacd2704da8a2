-- @rule   OQ-35
-- @says   The request line of each successful GET read (per tool, one path with one query string): an initial read belongs to its line's initial records, a later read to a later line only when its line has no initial read; the line is named by its latest record.
-- @grain  one row per successful GET read on a line (record_id)
-- @reads  read_records, initial_reads, record
create view line_records as
with reads as (
  select r.capture_id, r.record_id, r.ordinal, r.timeline_position, r.tool_id, r.tool, r.root_path, r.ends_in_param,
         c.path, c.query, coalesce(c.query, '') as query_text, c.response_body_id,
         cast(i.record_id is not null as integer) as is_initial
  from read_records r
  join record c on c.id = r.record_id
  left join initial_reads i on i.record_id = r.record_id
  where upper(r.method) = 'GET' and r.status between 200 and 299
),
keyed as (
  -- Whether the line (path and query string) has an initial read at all.
  select r.*, max(r.is_initial) over (partition by r.tool_id, r.path, r.query_text) as has_initial_read
  from reads r
),
on_lines as (
  -- A later read of a line that has initial reads is on no line: that line is judged on its initial records.
  select * from keyed where is_initial = 1 or has_initial_read = 0
),
final as (
  select capture_id, record_id, ordinal, timeline_position, tool_id, tool, root_path, ends_in_param, path, query,
         response_body_id, is_initial,
         first_value(record_id) over (
           partition by tool_id, path, query_text, is_initial order by timeline_position desc
         ) as line_id
  from on_lines
)
select * from final;
