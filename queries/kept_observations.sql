-- @rule   ES-19
-- @says   The entity observations the state is merged and ordered from: every observation (ES-26) except those of the records on unchecked request lines (projected rows, ES-12/ES-13, and distinguishable variants, ES-19), which leave the entity observations.
-- @grain  one row per (initial read record, entity object), as entity_observations
-- @reads  entity_observations, unchecked_records
create view kept_observations as
with unchecked as materialized (
  select record_id from unchecked_records
),
final as (
  select o.*
  from entity_observations o
  where o.record_id not in (select record_id from unchecked)
)
select * from final;
