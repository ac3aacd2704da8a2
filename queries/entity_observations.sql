-- @rule   ES-26
-- @says   Every observation of an entity in a type's successful initial reads: each listed object that carries the type's identity field, and each item read's entity, keyed by (type root, identity value); the input the state merges into one entity per collection and identity.
-- @grain  one row per (initial read record, entity object)
-- @reads  initial_reads, read_records, type_identities, list_locations, item_locations, member_node
create view entity_observations as
with reads as materialized (
  select i.*, r.ends_in_param, r.lists_collection, r.timeline_order
  from initial_reads i
  join read_records r on r.record_id = i.record_id
  where i.status between 200 and 299
),
identities as materialized (
  select * from type_identities
),
lists as materialized (
  select * from list_locations
),
list_obs as (
  select r.capture_id, r.root_path, r.record_id, r.ordinal, r.timeline_position, r.tool_id, r.tool,
         'list' as view_kind, o.pointer as entity_pointer, o.position as list_index,
         cast(f.value as text) as entity_id, r.response_body_id as body_id
  from reads r
  join identities t on t.capture_id = r.capture_id and t.root_path = r.root_path
  join lists l on l.body_id = r.response_body_id
  -- cross: down from the list's node, in this order (list, entries, each one's identity member)
  cross join member_node a indexed by member_node_pointer on a.body_id = l.body_id and a.pointer = l.list_pointer
  cross join member_node o on o.body_id = a.body_id and o.parent = a.node and o.type = 'object'
  cross join member_node f on f.body_id = o.body_id and f.parent = o.node and f.key = t.identity_field
  where r.lists_collection = 1 and f.type in ('string', 'integer')
),
item_obs as (
  select r.capture_id, r.root_path, r.record_id, r.ordinal, r.timeline_position, r.tool_id, r.tool,
         'item' as view_kind, l.entity_pointer, cast(null as integer) as list_index,
         cast(f.value as text) as entity_id, r.response_body_id as body_id
  from reads r
  join identities t on t.capture_id = r.capture_id and t.root_path = r.root_path
  join item_locations l on l.record_id = r.record_id
  cross join member_node e indexed by member_node_pointer on e.body_id = r.response_body_id and e.pointer = l.entity_pointer
  cross join member_node f on f.body_id = e.body_id and f.parent = e.node and f.key = t.identity_field
  where r.ends_in_param = 1 and f.type in ('string', 'integer')
),
final as (
  select * from list_obs
  union all
  select * from item_obs
)
select * from final;
