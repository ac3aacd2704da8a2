-- @rule   ES-11
-- @says   A type's identity field: the member its item reads repeat from the path (proven), otherwise the identity name that identifies its lists' entries, otherwise (IDN-1) a suffix-named field, otherwise (issue 18) a member unique across the listed items, the same in every list read of each tool that shows it.
-- @grain  one row per (capture_id, root_path) with an identity
-- @reads  item_locations, read_records, list_locations, vocabulary
create view type_identities as
with identity_names as (
  select name, rank from vocabulary where vocabulary = 'identity'
),
proven as (
  select l.capture_id, l.root_path, l.identity_key, count(*) as reads, n.rank as name_rank
  from item_locations l
  left join identity_names n on n.name = l.identity_key
  group by l.capture_id, l.root_path, l.identity_key, n.rank
),
listed as (
  select r.capture_id, r.root_path, l.identity_key, l.identity_source, count(*) as reads, n.rank as name_rank
  from read_records r
  join list_locations l on l.body_id = r.response_body_id
  left join identity_names n on n.name = l.identity_key
  where r.lists_collection = 1 and r.status between 200 and 299 and l.identity_key is not null
  group by r.capture_id, r.root_path, l.identity_key, l.identity_source, n.rank
),
tool_list_reads as (
  select r.capture_id, r.root_path, r.tool_id, count(*) as reads
  from read_records r
  join list_locations l on l.body_id = r.response_body_id
  where r.lists_collection = 1 and r.status between 200 and 299
  group by r.capture_id, r.root_path, r.tool_id
),
unstable_members as (
  -- Issue 18: a member identity must be stable: the same member in every list read of each
  -- tool that shows it (a key unique in one read and repeated in the next identifies nothing).
  select m.capture_id, m.root_path, m.identity_key
  from (
    select r.capture_id, r.root_path, r.tool_id, l.identity_key, count(*) as reads
    from read_records r
    join list_locations l on l.body_id = r.response_body_id
    where r.lists_collection = 1 and r.status between 200 and 299 and l.identity_source = 'member'
    group by r.capture_id, r.root_path, r.tool_id, l.identity_key
  ) m
  join tool_list_reads t on t.capture_id = m.capture_id and t.tool_id = m.tool_id
  where m.reads < t.reads
),
candidates as (
  select capture_id, root_path, identity_key, 'path' as identity_source, reads, 0 as source_rank, name_rank from proven
  union all
  select l.capture_id, l.root_path, l.identity_key, l.identity_source, l.reads,
         case l.identity_source when 'name' then 1 when 'suffix' then 2 else 3 end, l.name_rank
  from listed l
  where l.identity_source <> 'member'
     or not exists (select 1 from unstable_members u where u.capture_id = l.capture_id and u.root_path = l.root_path and u.identity_key = l.identity_key)
),
ranked as (
  -- Path proof first, then identity names, then suffix names, then member identities; within
  -- one source an identity name first (issue 18: Redmine's /projects/2.json proves the
  -- identity name though /projects/garden.json is read more, and identifier is then an
  -- alternate key), then
  -- more reads, then OQ-9 order.
  select c.*, row_number() over (partition by capture_id, root_path order by source_rank, name_rank is null, reads desc, name_rank, identity_key) as rn
  from candidates c
),
final as (
  select capture_id, root_path, identity_key as identity_field, identity_source, reads as evidence_reads
  from ranked
  where rn = 1
)
select * from final;
