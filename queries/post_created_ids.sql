-- @rule   ES-9
-- @says   A successful POST under another type root created an entity of a type when it names an id of 4+ characters that the type's reads show only after the POST started (a shorter id needs a read before and an item read naming it after).
-- @grain  one row per (type root, creating POST, created id)
-- @reads  writes, member_node, record, tool, read_records, read_shown_ids, vocabulary
create view post_created_ids as
with posts as (
  select w.capture_id, w.record_id, w.ordinal, w.timeline_position, w.timeline_order, w.started_ms, w.ended_ms,
         w.root_path, r.response_body_id
  from writes w
  join record r on r.id = w.record_id
  where upper(w.method) = 'POST' and w.status between 200 and 299
),
body_shapes as materialized (
  -- One row per POST body, aggregated once over its root and top-level members: the root's
  -- type, how many top-level scalars it has (ES-9 "sole scalar"), and the node of its
  -- only top-level member when that member is an object (OQ-10's single wrapper). Asking
  -- these per member instead made the rule quadratic in the body's size (issue 14). The
  -- root is node 0 (parent -1); top-level members are its children (parent 0).
  select m.body_id,
         max(case when m.parent = -1 then m.type end) as root_type,
         sum(case when m.parent = 0 and m.type not in ('object', 'array') then 1 else 0 end) as top_scalars,
         case when sum(cast(m.parent = 0 as integer)) = 1 then max(case when m.parent = 0 and m.type = 'object' then m.node end) end as wrapper_node
  from member_node m
  where m.body_id in (select response_body_id from posts) and m.parent in (-1, 0)
  group by m.body_id
),
object_bodies as (
  select * from body_shapes where root_type = 'object'
),
named_ids as (
  -- ES-9: an identity member at the top level of the body object
  select p.*, cast(m.value as text) as created_id
  from posts p
  join object_bodies s on s.body_id = p.response_body_id
  join member_node m on m.body_id = s.body_id and m.parent = 0
  where m.key in (select name from vocabulary where vocabulary = 'identity') and m.type in ('string', 'integer')
  union
  -- OQ-10: an identity member inside the object held by the body object's only member
  select p.*, cast(m.value as text)
  from posts p
  join object_bodies s on s.body_id = p.response_body_id and s.wrapper_node is not null
  join member_node m on m.body_id = s.body_id and m.parent = s.wrapper_node
  where m.key in (select name from vocabulary where vocabulary = 'identity') and m.type in ('string', 'integer')
  union
  -- ES-9: a bare scalar body
  select p.*, cast(m.value as text)
  from posts p
  join member_node m on m.body_id = p.response_body_id and m.parent = -1
  where m.type in ('string', 'integer')
  union
  -- ES-9: the sole scalar member of the body object
  select p.*, cast(m.value as text)
  from posts p
  join object_bodies s on s.body_id = p.response_body_id and s.top_scalars = 1
  join member_node m on m.body_id = s.body_id and m.parent = 0
  where m.type in ('string', 'integer')
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
shown_ranges as materialized (
  -- Per (type root, id), once: the earliest completion among the type's reads showing the id,
  -- how many of them have one, and how many of those are item reads, in both timeline orders.
  -- A read either completed before a POST started or did not, so "no read before and one
  -- after" is "the earliest is not before" — one row per id where counting per (POST, id)
  -- pair was quadratic in a session that creates the same ids over and over (issue 49: 28 s
  -- of a 200 MB capture of one small app). A read without a time counts on neither side.
  select capture_id, root_path, shown_id,
         min(timeline_position) as first_position,
         count(timeline_position) as positioned,
         sum(case when shown_by = 'item' and timeline_position is not null then 1 else 0 end) as positioned_items,
         min(ended_ms) as first_ended_ms,
         count(ended_ms) as timed,
         sum(case when shown_by = 'item' and ended_ms is not null then 1 else 0 end) as timed_items
  from read_shown_ids
  where shown_id in (select created_id from candidates)
  group by capture_id, root_path, shown_id
),
shown as (
  -- Per candidate (ES-9 condition 2; OQ-10: a read in flight counts as after): whether any of
  -- the type's reads showing the id completed before the POST started (record order: came
  -- earlier), whether any did not, and whether an item read is among the latter.
  select c.*,
         case when c.timeline_order = 'record-order'
              then case when s.first_position < c.timeline_position then 1 else 0 end
              else case when s.first_ended_ms < c.started_ms then 1 else 0 end end as read_before,
         case when c.timeline_order = 'record-order'
              then case when c.timeline_position is not null and s.positioned > 0 then 1 else 0 end
              else case when c.started_ms is not null and s.timed > 0 then 1 else 0 end end as read_after,
         case when c.timeline_order = 'record-order'
              then case when c.timeline_position is not null and s.positioned_items > 0 then 1 else 0 end
              else case when c.started_ms is not null and s.timed_items > 0 then 1 else 0 end end as item_read_after
  from candidates c
  join shown_ranges s on s.capture_id = c.capture_id and s.root_path = c.type_root and s.shown_id = c.created_id
),
first_reads as (
  -- For short ids: the type's earliest read, so "read before the POST" is one comparison.
  select capture_id, root_path, min(timeline_position) as first_position, min(ended_ms) as first_ended_ms
  from read_records
  group by capture_id, root_path
),
qualified as (
  select c.*
  from shown c
  left join first_reads f on f.capture_id = c.capture_id and f.root_path = c.type_root
  where c.read_before = 0 and c.read_after = 1
    and (
      length(c.created_id) >= 4
      or (c.item_read_after = 1
          and case when c.timeline_order = 'record-order' then f.first_position < c.timeline_position
                   else f.first_ended_ms < c.started_ms end)
    )
),
final as (
  select capture_id, type_root as root_path, record_id as post_record_id, ordinal as post_ordinal,
         timeline_position as post_timeline_position, started_ms as post_started_ms, ended_ms as post_ended_ms,
         created_id
  from qualified
)
select * from final;
