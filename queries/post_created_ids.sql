-- @rule   ES-9
-- @says   A successful POST under another type root created an entity of a type when it names an id of 4+ characters that the type's reads show only after the POST started (a shorter id needs a read before and an item read naming it after).
-- @grain  one row per (type root, creating POST, created id)
-- @reads  writes, member, record, tool, read_records, read_shown_ids
create view post_created_ids as
with posts as (
  select w.capture_id, w.record_id, w.ordinal, w.timeline_position, w.timeline_order, w.started_ms, w.ended_ms,
         w.root_path, r.response_body_id
  from writes w
  join record r on r.id = w.record_id
  where upper(w.method) = 'POST' and w.status between 200 and 299
),
root_members as not materialized (
  -- Inlined at each use (a member lookup by body): naming `posts` here would copy that
  -- subquery into every use, and SQLite expands views at each reference.
  select m.body_id, m.key, m.type, m.value, m.depth, m.parent_pointer
  from member m
  where m.depth <= 2
),
named_ids as (
  -- an identity member at the top level, or inside a single top-level wrapper object (OQ-10)
  select p.*, cast(m.value as text) as created_id
  from posts p
  join root_members m on m.body_id = p.response_body_id
  where m.key is not null and m.key in ('id', 'uuid', 'uid', 'guid', '_id') and m.type in ('string', 'integer')
    and (m.parent_pointer = '' and exists (select 1 from root_members r where r.body_id = m.body_id and r.depth = 0 and r.type = 'object')
         -- OQ-10: inside the object held by the body object's only member
         or (m.depth = 2 and exists (select 1 from root_members r where r.body_id = m.body_id and r.depth = 0 and r.type = 'object')
             and (select count(*) from root_members w where w.body_id = m.body_id and w.depth = 1) = 1
             and exists (select 1 from root_members w where w.body_id = m.body_id and w.depth = 1 and w.type = 'object')))
  union
  -- a bare scalar body
  select p.*, cast(m.value as text)
  from posts p
  join root_members m on m.body_id = p.response_body_id
  where m.depth = 0 and m.type in ('string', 'integer')
  union
  -- a sole scalar member of the body object
  select p.*, cast(m.value as text)
  from posts p
  join root_members m on m.body_id = p.response_body_id
  where m.depth = 1 and m.type in ('string', 'integer')
    and exists (select 1 from root_members r where r.body_id = m.body_id and r.depth = 0 and r.type = 'object')
    and (select count(*) from root_members s where s.body_id = m.body_id and s.depth = 1 and s.type in ('string', 'integer', 'real', 'true', 'false', 'null')) = 1
),
types as (
  select distinct capture_id, root_path from tool
),
candidates as materialized (
  -- ES-9 "elsewhere": a type root other than the POST's own (that one is bounded by ES-8).
  select n.*, t.root_path as type_root
  from named_ids n
  join types t on t.capture_id = n.capture_id and t.root_path <> n.root_path
),
shows as materialized (
  -- Which shown ids completed before the POST started (record order: came earlier).
  select c.capture_id, c.record_id as post_record_id, c.type_root, c.created_id,
         case when c.timeline_order = 'record-order' then s.timeline_position < c.timeline_position
              else s.ended_ms < c.started_ms end as completed_before,
         s.shown_by
  from candidates c
  join read_shown_ids s on s.capture_id = c.capture_id and s.root_path = c.type_root and s.shown_id = c.created_id
),
read_before as (
  -- For short ids: was the type read at all before the POST started?
  select distinct c.capture_id, c.record_id as post_record_id, c.type_root
  from candidates c
  join read_records r on r.capture_id = c.capture_id and r.root_path = c.type_root
  where case when c.timeline_order = 'record-order' then r.timeline_position < c.timeline_position
             else r.ended_ms < c.started_ms end
),
shown as (
  -- Per candidate, once: was it shown before the POST, after it, and by an item read after it.
  select post_record_id, type_root, created_id,
         coalesce(max(completed_before), 0) as is_shown_before,
         coalesce(max(not completed_before), 0) as is_shown_after,
         coalesce(max(not completed_before and shown_by = 'item'), 0) as is_item_shown_after
  from shows
  group by post_record_id, type_root, created_id
),
qualified as (
  select c.*
  from candidates c
  join shown s on s.post_record_id = c.record_id and s.type_root = c.type_root and s.created_id = c.created_id
  left join read_before b on b.post_record_id = c.record_id and b.type_root = c.type_root
  where not s.is_shown_before and s.is_shown_after
    and (length(c.created_id) >= 4 or (b.post_record_id is not null and s.is_item_shown_after))
),
final as (
  select capture_id, type_root as root_path, record_id as post_record_id, ordinal as post_ordinal,
         timeline_position as post_timeline_position, started_ms as post_started_ms, ended_ms as post_ended_ms,
         created_id
  from qualified
)
select * from final;
