-- @rule   ES-19
-- @says   The query keys that tell a representation variant apart from its tool's base rows (pagination aside): a parameter only the variant names (no base row names it), a value the base rows never give for a parameter they name, or a parameter every base row names and the variant omits; encoded per OQ-16 as a name, a name and value, or a name and is_omitted.
-- @grain  one row per (variant line_id, key_name, key_value, is_omitted)
-- @reads  variant_rows, query_param_roles
create view variant_keys as
with lines as (
  select l.*, min(case when l.is_base = 1 then l.line_id end) over (partition by l.tool_id) as first_base_line_id
  from variant_rows l
  where l.is_base = 1 or l.is_variant = 1
),
params as (
  -- Each base line and variant once per query parameter it names ('own'; once with none when it
  -- names none), and each variant once per parameter its tool's first base line names: the
  -- candidates for "every base row names it" (one pass over the lines).
  select l.capture_id, l.tool_id, l.tool, l.line_id, l.is_base, l.is_variant, l.base_line_count, k.param_source,
         q.name, q.value, q.role, q.position
  from lines l
  cross join (select 'own' as param_source union all select 'first-base') k
  left join query_param_roles q on q.record_id = case k.param_source when 'own' then l.line_id else l.first_base_line_id end
  where k.param_source = 'own' or l.is_variant = 1
),
ranked as (
  select p.*, row_number() over (partition by p.line_id, p.param_source, p.name order by p.position) as name_rank
  from params p
),
marked as (
  select r.*,
         max(cast(r.param_source = 'own' and r.is_base = 1 as integer)) over (partition by r.tool_id, r.name) as is_base_name,
         max(cast(r.param_source = 'own' and r.is_base = 1 as integer)) over (partition by r.tool_id, r.name, r.value) as is_base_value,
         -- base lines naming it (a line naming it twice counts once)
         sum(cast(r.param_source = 'own' and r.is_base = 1 and r.name_rank = 1 as integer)) over (partition by r.tool_id, r.name) as base_lines_naming,
         max(cast(r.param_source = 'own' as integer)) over (partition by r.line_id, r.name) as is_named_by_line
  from ranked r
),
keys as (
  -- Own parameters give the first two kinds, the first base line's the third (one pass).
  select capture_id, tool_id, tool, line_id, name as key_name,
         case when param_source = 'own' and is_base_name = 1 then value end as key_value,
         cast(param_source = 'first-base' as integer) as is_omitted
  from marked
  where name is not null and role <> 'pagination'
    and ((param_source = 'own' and is_variant = 1 and (is_base_name = 0 or is_base_value = 0))
      or (param_source = 'first-base' and base_lines_naming = base_line_count and is_named_by_line = 0))
),
final as (
  select distinct * from keys
)
select * from final;
