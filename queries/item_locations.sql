-- @rule   ES-38
-- @says   Where a successful item read holds its entity: the root object, an object in one member, or (IDN-5) the one object of a root or member array, whichever repeats the path value first in that order; the repeating member is the read's identity candidate (ES-11).
-- @grain  one row per successful item read whose entity repeats its path value
-- @reads  read_records, path_param, member
create view item_locations as
with item_reads as (
  select r.*, p.value as path_value
  from read_records r
  join path_param p on p.record_id = r.record_id
  where r.ends_in_param = 1 and r.status between 200 and 299
    and p.position = (select max(q.position) from path_param q where q.record_id = r.record_id)
),
objects as (
  -- Candidate entity objects with their location rank (ES-38 first, IDN-5 after).
  select m.body_id, m.pointer,
         case
           when m.depth = 0 then 0
           when p.type = 'object' then 1          -- an object in one member of the root object
           when m.depth = 1 then 2                -- /0 of a root array (IDN-5)
           else 3                                 -- /<member>/0 (IDN-5)
         end as location_rank
  from member m
  left join member p on p.body_id = m.body_id and p.pointer = m.parent_pointer
  where m.type = 'object'
    and (m.depth = 0
         or (m.depth = 1 and exists (select 1 from member r where r.body_id = m.body_id and r.depth = 0 and r.type = 'object'))
         or (m.position = 0 and m.depth <= 2 and exists (
               select 1 from member a where a.body_id = m.body_id and a.pointer = m.parent_pointer and a.type = 'array' and a.depth <= 1
                 and (select count(*) from member e where e.body_id = a.body_id and e.parent_pointer = a.pointer) = 1)))
),
repeats as (
  select i.capture_id, i.record_id, i.ordinal, i.tool_id, i.tool, i.root_path, i.path_value,
         o.pointer as entity_pointer, o.location_rank, f.key as identity_key, f.position as key_position,
         case f.key when 'id' then 0 when 'uuid' then 1 when 'uid' then 2 when 'guid' then 3 when '_id' then 4 else 5 end as name_rank
  from item_reads i
  join objects o on o.body_id = i.response_body_id
  join member f on f.body_id = o.body_id and f.parent_pointer = o.pointer
  where f.type in ('string', 'integer') and cast(f.value as text) = i.path_value
    -- IDN-5: an array location needs an identity name to repeat the value.
    and (o.location_rank < 2 or f.key in ('id', 'uuid', 'uid', 'guid', '_id'))
),
ranked as (
  select r.*, row_number() over (partition by record_id order by location_rank, name_rank, key_position) as rn
  from repeats r
),
final as (
  select capture_id, record_id, ordinal, tool_id, tool, root_path, path_value, entity_pointer, identity_key
  from ranked
  where rn = 1
)
select * from final;
