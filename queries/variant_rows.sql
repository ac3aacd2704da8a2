-- @rule   ES-17
-- @says   A representation variant: a remaining, non-base initial request line showing objects that shows an entity another remaining line shows with other members, or names a parameter the base rows do not name (pagination aside), and whose objects carry a member the base objects do not carry or lack a member the base objects all carry.
-- @grain  one row per request line (line_id), as base_rows, with base_line_count, the four conditions and is_variant
-- @reads  base_rows, shown_object_members, shown_object_ids, query_param_roles
create view variant_rows as
with lines as materialized (
  select b.*, sum(b.is_base) over (partition by b.tool_id) as base_line_count from base_rows b
),
items as (
  -- Each remaining line once per thing it shows or names: its members, its entities (with
  -- that object's member set) and its query parameters. One pass over the lines: a constant
  -- table of the three kinds, each kind joined on its own rows.
  select l.line_id, l.tool_id, l.is_base, l.base_line_count, k.item_kind,
         coalesce(m.member_key, i.entity_id, q.name) as item_name,
         coalesce(i.members_signature, q.value) as item_value,
         m.is_common, q.role
  from lines l
  cross join (select 'member' as item_kind union all select 'entity' union all select 'param') k
  left join shown_object_members m on k.item_kind = 'member' and m.body_id = l.set_body_id and m.set_pointer = l.set_pointer
  left join shown_object_ids i on k.item_kind = 'entity' and i.body_id = l.set_body_id and i.set_pointer = l.set_pointer
    and i.identity_field = l.identity_field
  left join query_param_roles q on k.item_kind = 'param' and q.record_id = l.line_id
  where l.is_rest = 1
),
marked as (
  select t.*,
         -- a member some base line shows; a parameter some base line names
         max(t.is_base) over (partition by t.tool_id, t.item_kind, t.item_name) as is_base_item,
         -- a member every base line's objects all carry
         cast(sum(cast(t.is_base = 1 and t.is_common = 1 as integer)) over (partition by t.tool_id, t.item_kind, t.item_name) = t.base_line_count as integer) as is_base_common,
         row_number() over (partition by t.tool_id, t.item_kind, t.item_name order by t.line_id) as item_rank,
         -- an entity the remaining lines show with more than one member set
         cast(min(t.item_value) over (partition by t.tool_id, t.item_kind, t.item_name)
           <> max(t.item_value) over (partition by t.tool_id, t.item_kind, t.item_name) as integer) as has_other_member_sets
  from items t
),
tool_marked as (
  select m.*,
         sum(cast(m.item_kind = 'member' and m.item_name is not null and m.item_rank = 1 and m.is_base_common = 1 as integer))
           over (partition by m.tool_id) as base_common_member_count
  from marked m
),
line_conditions as (
  select line_id,
         max(cast(item_kind = 'entity' and item_name is not null and has_other_member_sets = 1 as integer)) as shows_entity_otherwise,
         max(cast(item_kind = 'param' and item_name is not null and role <> 'pagination' and is_base_item = 0 as integer)) as names_param_base_lacks,
         max(cast(item_kind = 'member' and item_name is not null and is_base_item = 0 as integer)) as carries_member_base_lacks,
         cast(max(base_common_member_count)
           > sum(cast(item_kind = 'member' and item_name is not null and is_common = 1 and is_base_common = 1 as integer)) as integer) as lacks_member_base_carries
  from tool_marked
  group by line_id
),
flagged as (
  select l.*,
         coalesce(c.shows_entity_otherwise, 0) as shows_entity_otherwise,
         coalesce(c.names_param_base_lacks, 0) as names_param_base_lacks,
         coalesce(c.carries_member_base_lacks, 0) as carries_member_base_lacks,
         coalesce(c.lacks_member_base_carries, 0) as lacks_member_base_carries
  from lines l
  left join line_conditions c on c.line_id = l.line_id
),
final as (
  select f.*,
         cast(f.is_rest = 1 and f.is_base = 0 and f.object_count > 0
          and (f.shows_entity_otherwise = 1 or f.names_param_base_lacks = 1)
          and (f.carries_member_base_lacks = 1 or f.lacks_member_base_carries = 1) as integer) as is_variant
  from flagged f
)
select * from final;
