-- @rule   ES-14
-- @says   A later item request line (first recorded after the type's initial read) that shows an entity is listed in projected_record_ordinals when it names a shaping parameter no checked line names and its object carries or lacks members the checked lines do not, or selects only some fields and omits members the checked lines always show.
-- @grain  one row per late shaping item request line (line_id)
-- @reads  unchecked_lines, shown_object_members, query_param_roles
create view late_shaping_rows as
with lines as (
  -- Item lines: the checked initial lines (after ES-12, ES-13 and ES-19) and the later lines showing an entity.
  select l.*, cast(l.is_initial = 1 and l.is_unchecked = 0 as integer) as is_checked,
         sum(cast(l.is_initial = 1 and l.is_unchecked = 0 as integer)) over (partition by l.tool_id) as checked_line_count
  from unchecked_lines l
  where l.ends_in_param = 1 and (l.is_initial = 1 or l.object_count > 0)
),
items as (
  -- Each such line once per member its object carries and once per query parameter it names (one pass).
  select l.capture_id, l.tool_id, l.tool, l.line_id, l.latest_ordinal, l.path, l.query, l.is_initial, l.is_checked,
         l.checked_line_count, l.is_partial_projection, k.item_kind,
         coalesce(m.member_key, q.name) as item_name, m.is_common, q.role
  from lines l
  cross join (select 'member' as item_kind union all select 'param') k
  left join shown_object_members m on k.item_kind = 'member' and m.body_id = l.set_body_id and m.set_pointer = l.set_pointer
  left join query_param_roles q on k.item_kind = 'param' and q.record_id = l.line_id
),
marked as (
  select i.*,
         -- a member some checked line shows; a parameter some checked line names
         max(i.is_checked) over (partition by i.tool_id, i.item_kind, i.item_name) as is_checked_item,
         -- a member every checked line shows
         cast(sum(cast(i.is_checked = 1 and i.is_common = 1 as integer)) over (partition by i.tool_id, i.item_kind, i.item_name) = i.checked_line_count
           and i.checked_line_count > 0 as integer) as is_always_shown,
         row_number() over (partition by i.tool_id, i.item_kind, i.item_name order by i.line_id) as item_rank
  from items i
),
tool_marked as (
  select m.*,
         sum(cast(m.item_kind = 'member' and m.item_name is not null and m.item_rank = 1 and m.is_always_shown = 1 as integer))
           over (partition by m.tool_id) as always_shown_count
  from marked m
),
late_lines as (
  select capture_id, tool_id, tool, line_id, latest_ordinal, path, query, is_partial_projection,
         -- ES-14: a shaping parameter other than a projection (`expand`, …) that no checked line names
         max(cast(item_kind = 'param' and item_name is not null and role = 'shaping' and is_checked_item = 0 as integer)) as names_new_shaping_param,
         max(cast(item_kind = 'member' and item_name is not null and is_checked_item = 0 as integer)) as carries_member_checked_lack,
         cast(max(always_shown_count) > sum(cast(item_kind = 'member' and item_name is not null and is_common = 1 and is_always_shown = 1 as integer))
           as integer) as lacks_member_checked_show
  from tool_marked
  where is_initial = 0
  group by capture_id, tool_id, tool, line_id, latest_ordinal, path, query, is_partial_projection
),
final as (
  select * from late_lines
  where (names_new_shaping_param = 1 and (carries_member_checked_lack = 1 or lacks_member_checked_show = 1))
     or (is_partial_projection = 1 and lacks_member_checked_show = 1)
)
select * from final;
