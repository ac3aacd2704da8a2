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
shown as materialized (
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
scoped as materialized (
  -- Read three times below. Issue 49: a member's count and first showing are aggregated once
  -- per member, and only the first observation's members are ranked, where five window passes
  -- over every shown member's row took 1.2 s of a 50 MB capture's state pass (now 0.3 s).
  select capture_id, tool, 'all' as scope, key, all_index as obs_index, position from shown
  union all
  select capture_id, tool, 'list', key, list_index, position from shown where list_index is not null
),
tally as (
  -- Per member: how many observations show it, and the first that does.
  select capture_id, tool, scope, key, count(*) as shown_count, min(obs_index) as first_index
  from scoped
  group by capture_id, tool, scope, key
),
base as materialized (
  -- The first observation's members, by place (1, 2, …).
  select capture_id, tool, scope, key, position, row_number() over (partition by capture_id, tool, scope order by position) as base_place
  from scoped
  where obs_index = 1
),
firsts as materialized (
  -- Each member where it was first shown, with its place in the first observation (null: the first lacks it).
  select t.capture_id, t.tool, t.scope, t.key, t.shown_count, t.first_index, min(s.position) as position, max(b.base_place) as base_place
  from tally t
  join scoped s on s.capture_id = t.capture_id and s.tool = t.tool and s.scope = t.scope and s.key = t.key and s.obs_index = t.first_index
  left join base b on b.capture_id = t.capture_id and b.tool = t.tool and b.scope = t.scope and b.key = t.key
  group by t.capture_id, t.tool, t.scope, t.key, t.shown_count, t.first_index
),
anchored as (
  -- A member the first observation lacks: the latest place of the first observation's members before it where it was first shown.
  select f.*,
         case when f.base_place is null then (
           select max(b.base_place)
           from scoped p
           join base b on b.capture_id = p.capture_id and b.tool = p.tool and b.scope = p.scope and b.key = p.key
           where p.capture_id = f.capture_id and p.tool = f.tool and p.scope = f.scope and p.obs_index = f.first_index and p.position < f.position
         ) end as before_place
  from firsts f
),
final as (
  -- A member the first observation lacks goes where it was first shown: right after the last (in
  -- the first observation's order) of that observation's members before it there (Redmine's
  -- optional `category` between `assigned_to` and `subject`, though the first issue listed has none).
  select f.capture_id, f.tool, f.scope, f.key as field,
         row_number() over (
           partition by f.capture_id, f.tool, f.scope
           order by coalesce(f.base_place, coalesce(f.before_place, 0) + 1), f.base_place is not null, f.first_index, f.position) - 1 as field_order,
         cast(f.shown_count = case f.scope when 'all' then c.all_count else c.list_count end as integer) as is_required
  from anchored f
  join counts c on c.capture_id = f.capture_id and c.tool = f.tool
)
select * from final;
