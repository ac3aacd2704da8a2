-- @rule   none
-- @says   The member names an object set's objects carry (the union of their member sets), with how many objects carry each and whether every object does (the members the set always shows); a set whose objects carry no member keeps one row with none, so every set has its object count here.
-- @grain  one row per (body_id, set_pointer, member_key), or per (body_id, set_pointer) with a null member_key
-- @reads  shown_objects, member_node
create view shown_object_members as
with objects as (
  select * from shown_objects
),
keys as (
  -- An object's members are its node's children: a range of member_node's key.
  select o.body_id, o.set_pointer, o.object_count, m.key as member_key
  from objects o
  left join member_node e indexed by member_node_pointer on e.body_id = o.body_id and e.pointer = o.object_pointer
  left join member_node m on m.body_id = e.body_id and m.parent = e.node
),
grouped as (
  select body_id, set_pointer, member_key, max(object_count) as object_count,
         count(*) as objects_with_key, cast(count(*) = max(object_count) as integer) as is_common
  from keys
  group by body_id, set_pointer, member_key
),
final as (
  -- A set's memberless objects are only its row with no member when nothing else is carried.
  select body_id, set_pointer, member_key, object_count, objects_with_key, is_common
  from (select g.*, count(member_key) over (partition by body_id, set_pointer) as member_count from grouped g) as counted
  where member_key is not null or member_count = 0
)
select * from final;
