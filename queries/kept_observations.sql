-- @rule   ES-19
-- @says   The entity observations the state is merged and ordered from: every observation (ES-26) except those of the records on unchecked request lines (projected rows, ES-12/ES-13, and distinguishable variants, ES-19), which leave the entity observations.
-- @grain  one row per (initial read record, entity object), as entity_observations
-- @reads  entity_observations, line_records, unchecked_lines
create view kept_observations as
with unchecked_records as materialized (
  select r.record_id
  from line_records r
  join unchecked_lines u on u.line_id = r.line_id
  where u.is_unchecked = 1
),
final as (
  select o.*
  from entity_observations o
  where o.record_id not in (select record_id from unchecked_records)
)
select * from final;
