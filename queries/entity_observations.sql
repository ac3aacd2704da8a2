-- @rule   ES-26
-- @says   Every observation of an entity in a type's successful initial reads: each listed object that carries the type's identity field, and each item read's entity, keyed by (type root, identity value); the input the state merges into one entity per collection and identity.
-- @grain  one row per (initial read record, entity object)
-- @reads  initial_reads, read_records, type_identities, list_locations, item_locations, member
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
  join member o on o.body_id = l.body_id and o.parent_pointer = l.list_pointer and o.type = 'object'
  join member f on f.body_id = o.body_id and f.parent_pointer = o.pointer and f.key = t.identity_field
  where r.lists_collection = 1 and f.type in ('string', 'integer')
),
item_obs as (
  select r.capture_id, r.root_path, r.record_id, r.ordinal, r.timeline_position, r.tool_id, r.tool,
         'item' as view_kind, l.entity_pointer, null as list_index,
         cast(f.value as text) as entity_id, r.response_body_id as body_id
  from reads r
  join identities t on t.capture_id = r.capture_id and t.root_path = r.root_path
  join item_locations l on l.record_id = r.record_id
  join member f on f.body_id = r.response_body_id and f.parent_pointer = l.entity_pointer and f.key = t.identity_field
  where r.ends_in_param = 1 and f.type in ('string', 'integer')
),
final as (
  select * from list_obs
  union all
  select * from item_obs
)
select * from final;
