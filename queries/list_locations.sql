-- @rule   OQ-11
-- @says   The list of a JSON body: a root array of objects, else an array of objects at a top-level member or inside a top-level wrapper object, preferring identity-name identified arrays, then suffix-named ones with 2+ entries (IDN-4), then top-level over wrapped, then member order; without either, a member unique over 2+ entries that reads as a key (issue 18, source `member`); ids compare by their spelling (OQ-9); an envelope carrying a scalar identity-name member is an entity, not a list (ES-22).
-- @grain  one row per JSON body that has a non-empty list
-- @reads  body, member_node, vocabulary
-- IDN-1, IDN-2: a field named `…Id` or `…_id` identifies entries only over 2+ entries of one answer, pairwise distinct; a list that only ever had one entry is not identified by it.
create view list_locations as
with members as not materialized (
  -- Read in place (a copy of every member would lose member_node's key).
  select * from member_node -- every column: PostgreSQL's member_node has key_is_index too (issue 20)
),
identity_names as materialized (
  select name, rank from vocabulary where vocabulary = 'identity'
),
roots as materialized (
  -- One key lookup per JSON body (a scan for parent = -1 would read every member).
  select r.body_id, r.node, r.position, r.pointer, r.type as root_type
  from body b
  cross join members r on r.body_id = b.id and r.parent = -1
  where b.kind = 'json'
),
entity_objects as materialized (
  -- ES-22: an object (the root, or a top-level wrapper) that carries a scalar identity name is
  -- an entity. Looked up by name under the root and under its object members (key lookups).
  select r.body_id, r.node as object_node
  from roots r
  cross join identity_names n
  cross join members f on f.body_id = r.body_id and f.parent = r.node and f.key = n.name
  where f.type in ('string', 'integer')
  union
  select p.body_id, p.node
  from roots r
  cross join members p on p.body_id = r.body_id and p.parent = r.node
  cross join identity_names n
  cross join members f on f.body_id = p.body_id and f.parent = p.node and f.key = n.name
  where r.root_type = 'object' and p.type = 'object' and f.type in ('string', 'integer')
),
arrays as (
  -- The root array, an array at the top level of a root object, or one in a top-level
  -- object of a root object: walked down from the root (a node's children are one key range).
  select r.body_id, r.node, r.pointer, 0 as depth, r.position as outer_position, r.position
  from roots r
  where r.root_type = 'array'
    and not exists (select 1 from entity_objects e where e.body_id = r.body_id and e.object_node = r.node)
  union all
  select a.body_id, a.node, a.pointer, a.depth, r.position as outer_position, a.position
  from roots r
  join members a on a.body_id = r.body_id and a.parent = r.node
  where r.root_type = 'object' and a.type = 'array'
    and not exists (select 1 from entity_objects e where e.body_id = r.body_id and e.object_node = r.node)
  union all
  select a.body_id, a.node, a.pointer, a.depth, p.position as outer_position, a.position
  from roots r
  join members p on p.body_id = r.body_id and p.parent = r.node
  join members a on a.body_id = p.body_id and a.parent = p.node
  where r.root_type = 'object' and p.type = 'object' and a.type = 'array'
    and not exists (select 1 from entity_objects e where e.body_id = r.body_id and e.object_node = r.node)
    and not exists (select 1 from entity_objects e where e.body_id = p.body_id and e.object_node = p.node)
),
candidates as materialized (
  select a.*, count(*) as entries
  from arrays a
  cross join members e on e.body_id = a.body_id and e.parent = a.node -- cross: down from the arrays, in this order
  group by a.body_id, a.node, a.pointer, a.depth, a.outer_position, a.position
  having sum(cast(e.type = 'object' as integer)) = count(*)
),
fields as materialized (
  -- Only the fields the two identity steps below read: identity names and suffix-named keys.
  -- Both need the key on every entry, so the keys are the first entry's, each looked up in
  -- every entry (a key lookup each), instead of reading every member of every entry.
  select c.body_id, c.pointer as list_pointer, c.entries, o.position as entry_index,
         f.key, f.position as key_position, f.value
  from candidates c
  cross join members first on first.body_id = c.body_id and first.parent = c.node and first.key = 0
  cross join members k on k.body_id = first.body_id and k.parent = first.node
  cross join members o on o.body_id = c.body_id and o.parent = c.node
  cross join members f on f.body_id = o.body_id and f.parent = o.node and f.key = k.key
  where k.type in ('string', 'integer')
    and (k.key in (select name from identity_names) or k.key glob '*Id' or k.key glob '*_id')
    and f.type in ('string', 'integer')
),
name_identity as (
  -- ES-11: the same identity name on every entry, with pairwise distinct values (OQ-9 order).
  select f.body_id, f.list_pointer, f.key, n.rank as name_rank
  from fields f
  join identity_names n on n.name = f.key
  group by f.body_id, f.list_pointer, f.key, n.rank
  having count(*) = max(entries) and count(distinct cast(value as text)) = max(entries)
),
suffix_identity as (
  -- IDN-1: a name ending in Id or _id on every entry, pairwise distinct, over 2+ entries;
  -- the first such key in the first entry's key order.
  select body_id, list_pointer, key, min(case when entry_index = 0 then key_position end) as first_position
  from fields
  where (key glob '*Id' or key glob '*_id') and entries >= 2
  group by body_id, list_pointer, key
  having count(*) = max(entries) and count(distinct cast(value as text)) = max(entries)
),
unnamed_fields as materialized (
  -- Issue 18: the scalar fields of arrays with 2+ entries that no identity name or suffix name
  -- identifies, for the member identity below (read only for those arrays).
  select c.body_id, c.pointer as list_pointer, c.entries, o.position as entry_index, f.key, f.position as key_position, f.value
  from candidates c
  cross join members o on o.body_id = c.body_id and o.parent = c.node -- cross: down from the arrays, in this order
  cross join members f on f.body_id = o.body_id and f.parent = o.node
  where c.entries >= 2 and f.type in ('string', 'integer')
    and not exists (select 1 from name_identity n where n.body_id = c.body_id and n.list_pointer = c.pointer)
    and not exists (select 1 from suffix_identity s where s.body_id = c.body_id and s.list_pointer = c.pointer)
),
member_identity as (
  -- Issue 18: when no identity name or suffix name is present, a member on every entry with
  -- pairwise distinct values that read as keys — no clock value (`2026-…`), no spaces (text) —
  -- identifies the list (Alertmanager's alerts by `fingerprint`, receivers by `name`); the first
  -- such key in the first entry's key order.
  select body_id, list_pointer, key, min(case when entry_index = 0 then key_position end) as first_position
  from unnamed_fields
  group by body_id, list_pointer, key
  having count(*) = max(entries) and count(distinct cast(value as text)) = max(entries)
     and sum(cast(cast(value as text) glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' or instr(cast(value as text), ' ') > 0 as integer)) = 0
),
first_member as (
  select * from (
    select m.*, row_number() over (partition by body_id, list_pointer order by first_position) as rn from member_identity m
  ) as ranked where rn = 1
),
first_name as (
  -- Per candidate array, its best identity name and its first suffix-named field, ranked
  -- once for all arrays (a lookup per array re-grouped every body's fields, issue 14).
  select * from (
    select n.*, row_number() over (partition by body_id, list_pointer order by name_rank) as rn from name_identity n
  ) as ranked where rn = 1
),
first_suffix as (
  select * from (
    select s.*, row_number() over (partition by body_id, list_pointer order by first_position) as rn from suffix_identity s
  ) as ranked where rn = 1
),
identified as (
  select c.*, n.key as name_key, s.key as suffix_key, m.key as member_key
  from candidates c
  left join first_name n on n.body_id = c.body_id and n.list_pointer = c.pointer
  left join first_suffix s on s.body_id = c.body_id and s.list_pointer = c.pointer
  left join first_member m on m.body_id = c.body_id and m.list_pointer = c.pointer
),
ranked as (
  -- A member identity does not change which array is the list (it ranks with unidentified ones).
  select i.*,
         row_number() over (
           partition by body_id
           order by case when name_key is not null then 0 when suffix_key is not null then 1 else 2 end, depth, outer_position, position
         ) as rn
  from identified i
),
final as (
  select body_id, pointer as list_pointer, entries,
         coalesce(name_key, suffix_key, member_key) as identity_key,
         case when name_key is not null then 'name' when suffix_key is not null then 'suffix' when member_key is not null then 'member' end as identity_source
  from ranked
  where rn = 1
)
select * from final;
