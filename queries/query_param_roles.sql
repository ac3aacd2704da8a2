-- @rule   OQ-13
-- @says   The role of each query parameter, by its name lower-cased with everything from the first `[` removed: projection, pagination, ordering (sort and direction) or random as the vocabulary table lists them, or shaping (any other name: it may change the representation).
-- @grain  one row per query_param row (record_id, position)
-- @reads  query_param, vocabulary
create view query_param_roles as
with params as (
  select record_id, position, name, value from query_param
),
bare as (
  -- `fields[articles]`, `page[size]`, `sort[0][field]` and `sort[]` compare as fields, page and sort.
  select p.*, lower(case when instr(p.name, '[') > 0 then substr(p.name, 1, instr(p.name, '[') - 1) else p.name end) as bare_name
  from params p
),
final as (
  -- The roles are the vocabulary's (one list, migrations/0002-vocabulary.sql); any other name shapes.
  select b.record_id, b.position, b.name, b.value, b.bare_name, coalesce(v.vocabulary, 'shaping') as role
  from bare b
  left join vocabulary v on v.name = b.bare_name and v.vocabulary in ('projection', 'pagination', 'ordering', 'random')
)
select record_id, position, name, value, bare_name, role,
       -- OQ-13: shaping = neither pagination nor sort/direction nor random (a projection shapes too).
       cast(role in ('projection', 'shaping') as integer) as is_shaping
from final;
