-- @rule   OQ-17
-- @says   The projection values a tool's initial request lines gave, as checked lines gave them or as replayed lines (unchecked: projected rows and distinguishable variants) gave them; serving tests a call's values against them (ES-15).
-- @grain  one row per (tool, projection_value, is_replayed)
-- @reads  unchecked_lines, query_param_roles
create view projection_values as
with lines as (
  select * from unchecked_lines where is_initial = 1
),
final as (
  select distinct l.capture_id, l.tool_id, l.tool, q.value as projection_value, l.is_unchecked as is_replayed
  from lines l
  join query_param_roles q on q.record_id = l.line_id
  where q.role = 'projection'
)
select * from final;
