-- @rule   ES-21
-- @says   A view's fields are the ordered union of the members its observations show (the first observation's in body order; a member it lacks where it was first shown, right after the first observation's members before it there), less the members generated per response of an entity at the body root (ES-25); a field every observation shows is required. Item views count all their observations, list views their list observations.
-- @grain  one row per (capture_id, tool, scope, field); scope 'all' or 'list'
-- @reads  kept_observations, record, member_node, per_response_members
create view view_fields as
with obs as materialized (
  select o.capture_id, o.tool, o.view_kind, o.body_id, o.entity_pointer, c.path,
         row_number() over (partition by o.capture_id, o.tool order by o.timeline_position, o.list_index) as all_index,
         case when o.view_kind = 'list'
           then row_number() over (partition by o.capture_id, o.tool, o.view_kind order by o.timeline_position, o.list_index) end as list_index
  from kept_observations o
  join record c on c.id = o.record_id
),
generated as materialized (
  select capture_id, path, member_key from per_response_members
),
shown as (
  -- The entity object's own members: its node's children, a range of member_node's key. A
  -- member named "" stays out, as it did when this was the pointer range (entity_pointer || '/', …).
  select obs.capture_id, obs.tool, obs.all_index, obs.list_index, m.key, m.position
  from obs
  cross join member_node e indexed by member_node_pointer on e.body_id = obs.body_id and e.pointer = obs.entity_pointer -- cross: in this order
  cross join member_node m on m.body_id = e.body_id and m.parent = e.node and m.key <> ''
  left join generated g on obs.entity_pointer = '' and g.capture_id = obs.capture_id and g.path = obs.path and g.member_key = m.key
  where g.member_key is null
),
counts as (
  select capture_id, tool, count(*) as all_count, count(list_index) as list_count from obs group by capture_id, tool
),
scoped as (
  select capture_id, tool, 'all' as scope, key, all_index as obs_index, position from shown
  union all
  select capture_id, tool, 'list', key, list_index, position from shown where list_index is not null
),
ranked as (
  -- Each member's place in its scope's first observation (1, 2, …; null in the others).
  select s.*,
         case when s.obs_index = 1
           then row_number() over (partition by s.capture_id, s.tool, s.scope, s.obs_index order by s.position) end as first_place
  from scoped s
),
based as (
  -- The member's place in the first observation, on every row of it (null: the first lacks it).
  select r.*, max(r.first_place) over (partition by r.capture_id, r.tool, r.scope, r.key) as base_place
  from ranked r
),
anchored as (
  -- The latest place of the first observation's members before this one in its observation.
  select b.*,
         max(b.base_place) over (
           partition by b.capture_id, b.tool, b.scope, b.obs_index order by b.position
           rows between unbounded preceding and 1 preceding) as before_place
  from based b
),
firsts as (
  select s.*, row_number() over (partition by s.capture_id, s.tool, s.scope, s.key order by s.obs_index, s.position) as rn,
         count(*) over (partition by s.capture_id, s.tool, s.scope, s.key) as shown_count
  from anchored s
),
final as (
  -- A member the first observation lacks goes where it was first shown: right after the last (in
  -- the first observation's order) of that observation's members before it there (Redmine's
  -- optional `category` between `assigned_to` and `subject`, though the first issue listed has none).
  select f.capture_id, f.tool, f.scope, f.key as field,
         row_number() over (
           partition by f.capture_id, f.tool, f.scope
           order by coalesce(f.base_place, coalesce(f.before_place, 0) + 1), f.base_place is not null, f.obs_index, f.position) - 1 as field_order,
         cast(f.shown_count = case f.scope when 'all' then c.all_count else c.list_count end as integer) as is_required
  from firsts f
  join counts c on c.capture_id = f.capture_id and c.tool = f.tool
  where f.rn = 1
)
select * from final;
