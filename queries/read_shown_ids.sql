-- @rule   ES-10
-- @says   The ids a read shows: a list read, the identity values its listed entities carry (identity name, else the first suffix-named field distinct over 2+ entries); a successful item read, its path's id when its entity (ES-38, IDN-5 locations) repeats it.
-- @grain  one row per (read record, shown id)
-- @reads  read_records, list_locations, member, path_param
create view read_shown_ids as
with reads as (
  select * from read_records
),
list_shown as (
  select r.capture_id, r.record_id, r.ordinal, r.timeline_position, r.timeline_order, r.started_ms, r.ended_ms,
         r.root_path, cast(f.value as text) as shown_id, 'list' as shown_by
  from reads r
  join list_locations l on l.body_id = r.response_body_id and l.identity_key is not null
  join member o on o.body_id = l.body_id and o.parent_pointer = l.list_pointer
  join member f on f.body_id = o.body_id and f.parent_pointer = o.pointer and f.key = l.identity_key
  where r.ends_in_param = 0
),
item_params as (
  -- The path value of an item template's last parameter.
  select r.*, p.value as path_value
  from reads r
  join path_param p on p.record_id = r.record_id
  where r.ends_in_param = 1
    and p.position = (select max(q.position) from path_param q where q.record_id = r.record_id)
),
entity_objects as (
  -- ES-38 / IDN-5: where an item view's entity can sit: the root object, an object in a
  -- single member, or the one object of a root array or of a member array (/0, /<member>/0).
  select m.body_id, m.pointer
  from member m
  where m.type = 'object'
    and (m.depth = 0
         or (m.depth = 1 and m.parent_pointer = '' and exists (select 1 from member r where r.body_id = m.body_id and r.depth = 0 and r.type = 'object'))
         or (m.position = 0 and exists (
               select 1 from member a where a.body_id = m.body_id and a.pointer = m.parent_pointer and a.type = 'array' and a.depth <= 1
                 and (select count(*) from member e where e.body_id = a.body_id and e.parent_pointer = a.pointer) = 1)))
),
item_shown as (
  -- A successful read whose entity repeats the path value shows it; a JSON null body, an
  -- error body, or a value that only some nested member repeats shows nothing.
  select i.capture_id, i.record_id, i.ordinal, i.timeline_position, i.timeline_order, i.started_ms, i.ended_ms,
         i.root_path, i.path_value as shown_id, 'item' as shown_by
  from item_params i
  where i.status between 200 and 299
    and exists (
      select 1 from entity_objects o
      join member m on m.body_id = o.body_id and m.parent_pointer = o.pointer
      where o.body_id = i.response_body_id and m.type in ('string', 'integer') and cast(m.value as text) = i.path_value
    )
),
final as (
  select * from list_shown
  union
  select * from item_shown
)
select * from final;
