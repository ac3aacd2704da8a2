-- @rule   ES-10
-- @says   The ids a read shows: a list read, the identity values its listed entities carry (identity name, else the first suffix-named field distinct over 2+ entries); a successful item read, its path's id when its entity (ES-38, IDN-5 locations) repeats it.
-- @grain  one row per (read record, shown id)
-- @reads  read_records, list_locations, member_node, item_locations
create view read_shown_ids as
with reads as (
  select * from read_records
),
list_shown as (
  select r.capture_id, r.record_id, r.ordinal, r.timeline_position, r.timeline_order, r.started_ms, r.ended_ms,
         r.root_path, cast(f.value as text) as shown_id, 'list' as shown_by
  from reads r
  join list_locations l on l.body_id = r.response_body_id and l.identity_key is not null
  -- The list by its pointer, then its entries and each entry's identity member by key.
  cross join member_node a indexed by member_node_pointer on a.body_id = l.body_id and a.pointer = l.list_pointer -- cross: in this order
  cross join member_node o on o.body_id = a.body_id and o.parent = a.node
  cross join member_node f on f.body_id = o.body_id and f.parent = o.node and f.key = l.identity_key
  where r.lists_collection = 1
),
item_shown as (
  -- ES-38 / IDN-5 locate a successful item read's entity; the read shows its path id when
  -- that entity repeats it (item_locations). A JSON null body, an error body, or a value
  -- that only some nested member repeats shows nothing.
  select r.capture_id, r.record_id, r.ordinal, r.timeline_position, r.timeline_order, r.started_ms, r.ended_ms,
         r.root_path, l.path_value as shown_id, 'item' as shown_by
  from reads r
  join item_locations l on l.record_id = r.record_id
),
final as (
  select * from list_shown
  union
  select * from item_shown
)
select * from final;
