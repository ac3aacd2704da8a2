-- @rule   OQ-35
-- @says   Each request line of a tool's successful GET reads (initial lines, and later lines with no initial read) with its latest record, its record count, the object set that record shows (count, member set as comparable text, the members every object carries), its type's identity field, and what its query names: a projection, one other than `*` (some fields only), only `*` (every field), a shaping parameter.
-- @grain  one row per request line (line_id, the line's latest record)
-- @reads  line_records, item_locations, list_reads, type_identities, shown_object_members, query_param_roles
create view shaping_lines as
with records as (
  select * from line_records
),
lines as (
  -- Read once: the latest record's columns are taken where record_id = line_id.
  select capture_id, tool_id, tool, root_path, ends_in_param, is_initial, line_id, count(*) as record_count,
         max(case when record_id = line_id then ordinal end) as latest_ordinal,
         max(case when record_id = line_id then timeline_position end) as latest_timeline_position,
         max(case when record_id = line_id then path end) as path,
         max(case when record_id = line_id then query end) as query,
         max(case when record_id = line_id then response_body_id end) as latest_body_id
  from records
  group by capture_id, tool_id, tool, root_path, ends_in_param, is_initial, line_id
),
located as (
  -- The object set the latest record shows: its item location, or its list.
  select l.*, t.identity_field,
         case when i.record_id is not null or r.record_id is not null then l.latest_body_id end as set_body_id,
         coalesce(i.entity_pointer, r.list_pointer) as set_pointer
  from lines l
  left join type_identities t on t.capture_id = l.capture_id and t.root_path = l.root_path
  left join item_locations i on l.ends_in_param = 1 and i.record_id = l.line_id
  left join list_reads r on l.ends_in_param = 0 and r.record_id = l.line_id
),
set_members as (
  -- The set's member names in code-point order, each prefixed by its length: equal sets, equal text.
  select distinct body_id, set_pointer,
         max(object_count) over w as object_count,
         count(member_key) over w as member_count,
         sum(case when member_key is not null then is_common else 0 end) over w as common_member_count,
         group_concat(length(member_key) || ':' || member_key, ',') over (w order by member_key rows between unbounded preceding and unbounded following) as members_signature
  from shown_object_members
  window w as (partition by body_id, set_pointer)
),
params as (
  select q.record_id as line_id,
         max(cast(q.role = 'projection' as integer)) as has_projection,
         max(cast(q.role = 'projection' and q.value <> '*' as integer)) as has_partial_projection,
         max(q.is_shaping) as has_shaping_param
  from query_param_roles q
  group by q.record_id
),
final as (
  select l.capture_id, l.tool_id, l.tool, l.root_path, l.ends_in_param, l.is_initial, l.line_id, l.latest_ordinal,
         l.latest_timeline_position, l.path, l.query, l.record_count, l.identity_field, l.set_body_id, l.set_pointer,
         coalesce(m.object_count, 0) as object_count,
         coalesce(m.member_count, 0) as member_count,
         coalesce(m.common_member_count, 0) as common_member_count,
         coalesce(m.members_signature, '') as members_signature,
         coalesce(p.has_projection, 0) as has_projection,
         -- ES-12, ES-13: a projection value other than `*` requests only some fields.
         coalesce(p.has_partial_projection, 0) as is_partial_projection,
         -- ES-18 (2): projection values that are all `*` request every field.
         cast(coalesce(p.has_projection, 0) = 1 and coalesce(p.has_partial_projection, 0) = 0 as integer) as is_all_fields,
         coalesce(p.has_shaping_param, 0) as has_shaping_param
  from located l
  left join set_members m on m.body_id = l.set_body_id and m.set_pointer = l.set_pointer
  left join params p on p.line_id = l.line_id
)
select * from final;
