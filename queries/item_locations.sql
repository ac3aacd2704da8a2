-- @rule   ES-38
-- @says   Where a successful item read holds its entity: the root object, an object in one member, or (IDN-5) the one object of a root or member array, whichever repeats the path value first in that order and holds more than that value unless it is under an identity name (issue 18: an echo is no entity); the repeating member is the read's identity candidate (ES-11).
-- @grain  one row per successful item read whose entity repeats its path value
-- @reads  read_records, path_param, member_node, vocabulary
create view item_locations as
with item_reads as (
  select r.*, p.value as path_value
  from read_records r
  join path_param p on p.record_id = r.record_id
  where r.ends_in_param = 1 and r.status between 200 and 299
    and p.position = (select max(q.position) from path_param q where q.record_id = r.record_id)
),
repeating as (
  -- The members that repeat the path value, found in one pass over the body; each one's
  -- object and that object's parent are then looked up by node. (Walking from every
  -- object to its members instead was quadratic in the body's size, issue 14.) An array
  -- element has no name (its key is its index).
  select i.*, case when typeof(f.key) = 'text' then f.key end as identity_key, f.position as key_position, f.parent as entity_node, f.node as identity_node
  from item_reads i
  join member_node f on f.body_id = i.response_body_id
  where f.type in ('string', 'integer') and cast(f.value as text) = i.path_value
),
located as (
  -- Candidate entity objects with their location rank (ES-38 first, IDN-5 after).
  select r.*,
         case
           when o.depth = 0 then 0
           when p.type = 'object' then 1          -- an object in one member of the root object
           when o.depth = 1 then 2                -- /0 of a root array (IDN-5)
           else 3                                 -- /<member>/0 (IDN-5)
         end as location_rank,
         o.position as object_position, o.pointer as entity_pointer
  from repeating r
  join member_node o on o.body_id = r.response_body_id and o.node = r.entity_node
  join member_node root on root.body_id = o.body_id and root.parent = -1
  left join member_node p on p.body_id = o.body_id and p.node = o.parent
  where o.type = 'object'
    -- Issue 18: an object holding nothing but the path value under a name that is no identity
    -- name (`/api/status/{code}` answering `{"statusExpected": 200}`) echoes the request and is
    -- no entity (`{"id": "w-001"}` is one). Its members are a key range (body_id, parent).
    and (r.identity_key in (select name from vocabulary where vocabulary = 'identity')
         or exists (select 1 from member_node x
                    where x.body_id = o.body_id and x.parent = o.node and x.node <> r.identity_node))
    and (o.depth = 0
         or (o.depth = 1 and root.type = 'object')
         -- IDN-5: the first element of an array (at the root or a top-level member) that
         -- has exactly one element: no element at index 1.
         or (o.position = 0 and o.depth <= 2 and p.type = 'array' and p.depth <= 1
             and not exists (select 1 from member_node e where e.body_id = p.body_id and e.parent = p.node and e.key = 1)))
),
identity_names as (
  select name, rank from vocabulary where vocabulary = 'identity'
),
repeats as (
  -- OQ-9: an identity name's rank; other names (null) come after every identity name.
  select l.*, n.rank as name_rank
  from located l
  left join identity_names n on n.name = l.identity_key
  -- IDN-5: an array location needs an identity name to repeat the value.
  where location_rank < 2 or n.name is not null
),
ranked as (
  -- Ties (two objects in members of the root, each repeating the value under the same
  -- name and key position) go to the object in the earlier member (ES-38 "first").
  select r.*, row_number() over (partition by record_id order by location_rank, name_rank is null, name_rank, key_position, object_position) as rn
  from repeats r
),
final as (
  select capture_id, record_id, ordinal, tool_id, tool, root_path, path_value, entity_pointer, identity_key
  from ranked
  where rn = 1
)
select * from final;
