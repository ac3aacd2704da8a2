-- @rule   OQ-13
-- @says   The role of each query parameter, by its name lower-cased with everything from the first `[` removed: projection (fields, select, $select), pagination, ordering (sort and direction), random, or shaping (any other name: it may change the representation); the one place in SQL that holds these name lists.
-- @grain  one row per query_param row (record_id, position)
-- @reads  query_param
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
  select record_id, position, name, value, bare_name,
         case
           when bare_name in ('fields', 'select', '$select') then 'projection'
           when bare_name in ('page', 'per_page', 'perpage', 'page_size', 'pagesize', 'limit', 'offset', 'skip', 'start', 'cursor',
                              'after', 'before', '$top', '$skip', 'pagetoken', 'page_token', 'max_results') then 'pagination'
           when bare_name in ('sort', '_sort', 'sort-column', 'sort_column', 'sortkey', 'sort_by', 'sortby', 'order', '_order',
                              'orderby', 'order_by', '$orderby', 'dir', 'direction', 'sortdir', 'sort_dir', 'sortorder',
                              'sort_order') then 'ordering'
           when bare_name in ('random', 'rand', 'shuffle', 'seed') then 'random'
           else 'shaping'
         end as role
  from bare
)
select record_id, position, name, value, bare_name, role,
       -- OQ-13: shaping = neither pagination nor sort/direction nor random (a projection shapes too).
       role in ('projection', 'shaping') as is_shaping
from final;
