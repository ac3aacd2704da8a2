-- @rule   ES-19
-- @says   The records on unchecked request lines (projected item reads ES-12, projected list rows ES-13, distinguishable variants ES-19): they leave the view's checks and the entity observations.
-- @grain  one row per record on an unchecked line
-- @reads  line_records, unchecked_lines
create view unchecked_records as
with final as (
  select r.capture_id, r.record_id, r.tool, r.line_id
  from line_records r
  join unchecked_lines u on u.line_id = r.line_id
  where u.is_unchecked = 1
)
select * from final;
