-- @rule   ES-13
-- @says   An initial list request line that requests only some fields (a projection value other than `*`) is projected unless its objects all carry every member the tool's unprojected initial lines show (the server ignored the projection: it shows whole entities); it proves neither identity nor membership. is_projected: ES-12 or ES-13.
-- @grain  one row per request line (line_id), as projected_item_reads, with is_projected_list and is_projected
-- @reads  projected_item_reads, shown_object_members
create view projected_list_rows as
with lines as materialized (
  select * from projected_item_reads
),
line_members as (
  -- Every initial line, once per member its objects carry (once with no member when they carry none).
  select l.line_id, l.tool_id, l.is_partial_projection, m.member_key, m.is_common
  from lines l
  left join shown_object_members m on m.body_id = l.set_body_id and m.set_pointer = l.set_pointer
  where l.is_initial = 1
),
marked as (
  -- OQ-14: "every member the entity shows elsewhere" = the members the tool's unprojected lines show.
  select lm.*,
         max(cast(lm.member_key is not null and lm.is_partial_projection = 0 as integer)) over (partition by lm.tool_id, lm.member_key) as is_shown_unprojected,
         row_number() over (partition by lm.tool_id, lm.member_key order by lm.line_id) as member_rank
  from line_members lm
),
counted as (
  select m.*,
         sum(case when m.is_shown_unprojected = 1 and m.member_rank = 1 then 1 else 0 end) over (partition by m.tool_id) as unprojected_member_count
  from marked m
),
line_counts as (
  select line_id, max(unprojected_member_count) as unprojected_member_count,
         sum(case when is_shown_unprojected = 1 and is_common = 1 then 1 else 0 end) as carried_member_count
  from counted
  group by line_id
),
flagged as (
  select l.*,
         coalesce(c.unprojected_member_count, 0) as unprojected_member_count,
         coalesce(c.carried_member_count, 0) as carried_member_count,
         -- Nothing shown elsewhere to compare with counts as projected too.
         cast(l.is_initial = 1 and l.ends_in_param = 0 and l.is_partial_projection = 1
          and (coalesce(c.unprojected_member_count, 0) = 0 or c.carried_member_count < c.unprojected_member_count) as integer) as is_projected_list
  from lines l
  left join line_counts c on c.line_id = l.line_id
),
final as (
  select f.*, cast(f.is_projected_item = 1 or f.is_projected_list = 1 as integer) as is_projected from flagged f
)
select * from final;
