-- @rule   none
-- @says   The entity ids an object set shows under each identity field some type uses (a string or integer, compared by its spelling, OQ-9), each with the member set of the object showing it (the last one when a set shows an id twice), spelled as one comparable text: names in pointer order, each prefixed by its length.
-- @grain  one row per (body_id, set_pointer, identity_field, entity_id)
-- @reads  shown_objects, type_identities, member_node
create view shown_object_ids as
with objects as (
  select * from shown_objects
),
identity_fields as (
  select distinct identity_field from type_identities
),
identified as (
  select o.body_id, o.set_pointer, o.object_pointer, e.node as object_node, o.list_index, t.identity_field, cast(f.value as text) as entity_id
  from objects o
  cross join identity_fields t
  cross join member_node e indexed by member_node_pointer on e.body_id = o.body_id and e.pointer = o.object_pointer -- cross: in this order
  cross join member_node f on f.body_id = e.body_id and f.parent = e.node and f.key = t.identity_field
  where f.type in ('string', 'integer')
),
last_shown as (
  select * from (
    select i.*, row_number() over (partition by body_id, set_pointer, identity_field, entity_id order by list_index desc) as rn
    from identified i
  ) as ranked where rn = 1
),
final as (
  -- The object's member names, each prefixed by its length, in the order of their pointers (one
  -- range of member_node's key per object; ordered by the escaped name, which is the pointer's
  -- order, so equal sets read alike).
  select s.body_id, s.set_pointer, s.identity_field, s.entity_id,
         -- The order is a column, sort_key: PostgreSQL does not promise a subquery's order to the
         -- aggregate above it, so its dialect orders the aggregate by that column (issue 20).
         (select group_concat(k.member_name, ',') from (
            select length(m.key) || ':' || m.key as member_name, replace(replace(m.key, '~', '~0'), '/', '~1') as sort_key
            from member_node m
            where m.body_id = s.body_id and m.parent = s.object_node
            order by sort_key) k) as members_signature
  from last_shown s
)
select * from final;
