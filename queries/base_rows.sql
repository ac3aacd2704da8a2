-- @rule   ES-18
-- @says   The base rows variants are measured against, per tool, among the initial request lines ES-12 and ES-13 left (is_rest): the lines naming no shaping parameter; if none, the lines requesting every field (`*`); if none, the lines whose member set the most lines share, ties to the set with the earliest line (OQ-15).
-- @grain  one row per request line (line_id), as projected_list_rows, with is_rest, base_choice and is_base
-- @reads  projected_list_rows
create view base_rows as
with lines as (
  select * from projected_list_rows
),
rest as (
  select l.*, cast(l.is_initial = 1 and l.is_projected = 0 as integer) as is_rest from lines l
),
tool_options as (
  -- Per tool: which preference applies; per member set: how many remaining lines share it, and its earliest line.
  select r.*,
         max(cast(r.is_rest = 1 and r.has_shaping_param = 0 as integer)) over (partition by r.tool_id) as has_no_shaping_line,
         max(cast(r.is_rest = 1 and r.is_all_fields = 1 as integer)) over (partition by r.tool_id) as has_all_fields_line,
         sum(r.is_rest) over (partition by r.tool_id, r.is_rest, r.members_signature) as member_set_line_count,
         min(r.latest_timeline_position) over (partition by r.tool_id, r.is_rest, r.members_signature) as member_set_first_position
  from rest r
),
most_shared as (
  select o.*, max(case when o.is_rest = 1 then o.member_set_line_count end) over (partition by o.tool_id) as most_shared_line_count
  from tool_options o
),
agreed as (
  select s.*,
         min(case when s.is_rest = 1 and s.member_set_line_count = s.most_shared_line_count then s.member_set_first_position end)
           over (partition by s.tool_id) as agreed_set_first_position
  from most_shared s
),
final as (
  select a.*,
         case when a.is_rest = 0 then null
              when a.has_no_shaping_line = 1 then 'no-shaping'
              when a.has_all_fields_line = 1 then 'all-fields'
              else 'agree-most' end as base_choice,
         cast(a.is_rest = 1 and case when a.has_no_shaping_line = 1 then a.has_shaping_param = 0
                             when a.has_all_fields_line = 1 then a.is_all_fields = 1
                             else a.member_set_line_count = a.most_shared_line_count
                                  and a.member_set_first_position = a.agreed_set_first_position end as integer) as is_base
  from agreed a
)
select * from final;
