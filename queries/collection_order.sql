-- @rule   ES-33
-- @says   A collection's initial order is that of the first row listing every entity its initial reads show and naming no sort, direction or random parameter; otherwise earliest appearance (ES-34 state order).
-- @grain  one row per (capture_id, root_path, entity_id)
-- @reads  kept_observations, query_param_roles
create view collection_order as
with obs as materialized (
  -- ES-19: the observations left once projected rows and distinguishable variants are out,
  -- so a variant row listed first does not decide the order.
  select * from kept_observations
),
entities as (
  select capture_id, root_path, count(distinct entity_id) as entity_count from obs group by capture_id, root_path
),
ordering_params as (
  -- OQ-13: sort/direction and random parameters (their roles are named in query_param_roles).
  select distinct record_id from query_param_roles where role in ('ordering', 'random')
),
complete_rows as (
  -- list rows that name no ordering parameter and list every entity of the collection
  select o.capture_id, o.root_path, o.record_id, min(o.timeline_position) as timeline_position
  from obs o
  join entities e on e.capture_id = o.capture_id and e.root_path = o.root_path
  where o.view_kind = 'list' and o.record_id not in (select record_id from ordering_params)
  group by o.capture_id, o.root_path, o.record_id, e.entity_count
  having count(distinct o.entity_id) = e.entity_count
),
first_complete as (
  select * from (
    select c.*, row_number() over (partition by capture_id, root_path order by timeline_position) as rn from complete_rows c
  ) where rn = 1
),
from_row as (
  select o.capture_id, o.root_path, o.entity_id, min(o.list_index) as sort_key, 'row' as order_source, f.record_id as order_record_id
  from obs o
  join first_complete f on f.record_id = o.record_id
  group by o.capture_id, o.root_path, o.entity_id, f.record_id
),
from_appearance as (
  -- earliest appearance on the timeline; within one record, list order
  select o.capture_id, o.root_path, o.entity_id, min(o.timeline_position * 1000000 + coalesce(o.list_index, 0)) as sort_key,
         'appearance' as order_source, null as order_record_id
  from obs o
  where not exists (select 1 from first_complete f where f.capture_id = o.capture_id and f.root_path = o.root_path)
  group by o.capture_id, o.root_path, o.entity_id
),
combined as (
  select * from from_row union all select * from from_appearance
),
final as (
  select capture_id, root_path, entity_id,
         row_number() over (partition by capture_id, root_path order by sort_key, entity_id) - 1 as state_order,
         order_source, order_record_id
  from combined
)
select * from final;
