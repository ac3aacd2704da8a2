-- @rule   none
-- @says   The member names an object set's objects carry (the union of their member sets), with how many objects carry each and whether every object does (the members the set always shows).
-- @grain  one row per (body_id, set_pointer, member_key)
-- @reads  shown_objects, member
create view shown_object_members as
with objects as (
  select * from shown_objects
),
keys as (
  -- An object's members are the descendants of its pointer whose parent it is: a range of the member key
  -- (children of `/a` lie in [`/a/`, `/a0`), as `/` sorts just before `0`).
  select o.body_id, o.set_pointer, o.object_count, m.key as member_key
  from objects o
  join member m on m.body_id = o.body_id and m.pointer >= o.object_pointer || '/' and m.pointer < o.object_pointer || '0'
    and m.parent_pointer = o.object_pointer
),
final as (
  select body_id, set_pointer, member_key, count(*) as objects_with_key, count(*) = max(object_count) as is_common
  from keys
  group by body_id, set_pointer, member_key
)
select * from final;
