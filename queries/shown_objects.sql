-- @rule   none
-- @says   The entity objects the latest record of a request line (OQ-35) shows, per object set: an item read's located entity (ES-38, item_locations) or a list read's listed objects (OQ-11, list_reads); a set is (body, pointer), computed once per body whatever the number of lines sharing it.
-- @grain  one row per (body_id, set_pointer, object_pointer)
-- @reads  line_records, item_locations, list_reads, member_node
create view shown_objects as
with latest as (
  -- Only the lines' latest records are judged (ES-12..ES-19): their sets, not every read's.
  select record_id, response_body_id from line_records where record_id = line_id
),
sets as (
  select distinct l.response_body_id as body_id, coalesce(i.entity_pointer, r.list_pointer) as set_pointer,
         cast(r.record_id is not null as integer) as is_list
  from latest l
  left join item_locations i on i.record_id = l.record_id
  left join list_reads r on r.record_id = l.record_id
  where i.record_id is not null or r.record_id is not null
),
objects as (
  -- An item set is its one object; a list set, the objects listed at its pointer.
  -- (Left joins: down from the set's node to its entries, in this order; `sets` read once.)
  select s.body_id, s.set_pointer, coalesce(o.pointer, s.set_pointer) as object_pointer, coalesce(o.position, 0) as list_index
  from sets s
  left join member_node a indexed by member_node_pointer on s.is_list = 1 and a.body_id = s.body_id and a.pointer = s.set_pointer
  left join member_node o on o.body_id = a.body_id and o.parent = a.node and o.type = 'object'
  where s.is_list = 0 or o.pointer is not null
),
final as (
  select o.*, count(*) over (partition by body_id, set_pointer) as object_count from objects o
)
select * from final;
