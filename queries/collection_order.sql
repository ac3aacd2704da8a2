-- @rule   ES-33
-- @says   A collection's initial order is that of the first row listing every entity its initial reads show and naming no sort, direction or random parameter; otherwise earliest appearance (ES-34 state order).
-- @grain  one row per (capture_id, root_path, entity_id)
-- @reads  kept_observations, query_param_roles
create view collection_order as
-- One pass over the observations (window functions rather than joins of the observations with
-- themselves): SQLite expands a view at every reference, so each extra reference repeats the
-- whole rule chain under kept_observations.
with ordering_params as (
  -- OQ-13: sort/direction and random parameters (their roles are named in query_param_roles).
  select distinct record_id from query_param_roles where role in ('ordering', 'random')
),
obs as (
  -- ES-19: the observations left once projected rows and distinguishable variants are out,
  -- so a variant row listed first does not decide the order.
  select o.*, cast(o.record_id in (select record_id from ordering_params) as integer) as names_ordering
  from kept_observations o
),
ranked as (
  select o.*,
         dense_rank() over (partition by o.capture_id, o.root_path order by o.entity_id) as entity_rank,
         dense_rank() over (partition by o.record_id order by o.entity_id) as record_entity_rank
  from obs o
),
counted as (
  select r.*,
         max(r.entity_rank) over (partition by r.capture_id, r.root_path) as entity_count,
         max(r.record_entity_rank) over (partition by r.record_id) as record_entity_count
  from ranked r
),
first_complete as (
  -- The first list row that names no ordering parameter and lists every entity of the collection.
  select c.*,
         min(case when c.view_kind = 'list' and c.names_ordering = 0 and c.record_entity_count = c.entity_count
                  then c.timeline_position end) over (partition by c.capture_id, c.root_path) as first_complete_position
  from counted c
),
per_entity as (
  -- Its list order; without one, earliest appearance on the timeline (within one record, list order).
  select capture_id, root_path, entity_id,
         case when max(first_complete_position) is not null
              then min(case when timeline_position = first_complete_position then list_index end)
              else min(timeline_position * 1000000 + coalesce(list_index, 0)) end as sort_key,
         case when max(first_complete_position) is not null then 'row' else 'appearance' end as order_source,
         max(case when timeline_position = first_complete_position then record_id end) as order_record_id
  from first_complete
  group by capture_id, root_path, entity_id
),
final as (
  select capture_id, root_path, entity_id,
         row_number() over (partition by capture_id, root_path order by sort_key, entity_id) - 1 as state_order,
         order_source, order_record_id
  from per_entity
)
select * from final;
