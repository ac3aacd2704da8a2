-- @rule   ES-11
-- @says   A type's identity field: the member its item reads repeat from the path (proven), otherwise the identity name that identifies its lists' entries, otherwise (IDN-1) a suffix-named field.
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
candidates as (
  select capture_id, root_path, identity_key, 'path' as identity_source, reads, 0 as source_rank, name_rank from proven
  union all
  select capture_id, root_path, identity_key, identity_source, reads,
         case identity_source when 'name' then 1 else 2 end, name_rank
  from listed
),
ranked as (
  -- Path proof first, then identity names, then suffix names; more reads, then OQ-9 order.
  select c.*, row_number() over (partition by capture_id, root_path order by source_rank, reads desc, name_rank is null, name_rank, identity_key) as rn
  from candidates c
),
final as (
  select capture_id, root_path, identity_key as identity_field, identity_source, reads as evidence_reads
  from ranked
  where rn = 1
)
select * from final;
