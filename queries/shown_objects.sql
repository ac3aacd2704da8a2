-- @rule   none
-- @says   The entity objects a successful read's body shows, per object set: an item read's located entity (ES-38, item_locations) or a list read's listed objects (OQ-11, list_reads); a set is (body, pointer), computed once per body whatever the number of records sharing it.
-- @grain  one row per (body_id, set_pointer, object_pointer)
-- @reads  item_locations, list_reads, record, member
create view shown_objects as
with item_sets as (
  select distinct c.response_body_id as body_id, i.entity_pointer as set_pointer
  from item_locations i
  join record c on c.id = i.record_id
),
list_sets as (
  select distinct body_id, list_pointer as set_pointer from list_reads
),
objects as (
  select body_id, set_pointer, set_pointer as object_pointer, 0 as list_index from item_sets
  union all
  select s.body_id, s.set_pointer, o.pointer, o.position
  from list_sets s
  join member o on o.body_id = s.body_id and o.parent_pointer = s.set_pointer and o.type = 'object'
),
final as (
  select o.*, count(*) over (partition by body_id, set_pointer) as object_count from objects o
)
select * from final;
