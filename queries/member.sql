-- @rule   none
-- @says   The JSON members of usable bodies as one row each with its RFC 6901 pointer and its parent's (the layout before issue 14's member_node), for `capstate sql`, exploring and tests; rule views join member_node on node ids instead.
-- @grain  one row per JSON member of a usable body, the root included (pointer '')
-- @reads  member_node
create view member as
with roots as (
  select body_id, '' as pointer, null as parent_pointer, null as key, position, 0 as depth, type, value
  from member_node
  where parent = -1
),
children as (
  -- Down from each container (the nodes that keep a pointer) to its children: one key
  -- range each. A scalar's pointer is its parent's plus its key, escaped (RFC 6901).
  select c.body_id,
         coalesce(c.pointer, p.pointer || '/' || case when typeof(c.key) = 'integer' then c.key else replace(replace(c.key, '~', '~0'), '/', '~1') end) as pointer,
         p.pointer as parent_pointer,
         case when typeof(c.key) = 'text' then c.key end as key,
         -- member_node orders object members by node; readers get their rank (key order),
         -- counted per row (a window here would stop a body_id filter reaching member_node).
         case when p.type = 'array' then c.position
           else (select count(*) from member_node s where s.body_id = c.body_id and s.parent = c.parent and s.node < c.node) end as position,
         -- member_node keeps the depth of containers only (migration 0012).
         coalesce(c.depth, p.depth + 1) as depth, c.type, c.value
  from member_node p
  join member_node c on c.body_id = p.body_id and c.parent = p.node
  where p.pointer is not null
),
final as (
  select * from roots
  union all
  select * from children
)
select * from final;
