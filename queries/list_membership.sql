-- @rule   ES-35
-- @says   A list read has all membership only when no item-total member differs from the number it lists, no has_more, next or next-page token is set, and nothing beyond the body says it is a window or a page (a pagination key, an item-total or range header that differs, a next link).
-- @grain  one row per successful list read with a list
-- @reads  list_reads, list_counters, list_page_signals, member_node, vocabulary
create view list_membership as
with lists as materialized (
  select * from list_reads
),
next_tokens as (
  -- OQ-24: a next-page token or has-more flag that is set (not null, false or empty).
  -- A scalar member of the root or of a container one level down: `cursor.next` is the
  -- depth-2 `next`. Only the lists' roots (node 0, parent -1) and the members of their roots
  -- (parent 0) are read, and their members by key: a scan of every member took 1.9 s at
  -- 500 MB, and of every member of the lists' bodies 3.1 s (issue 49).
  select distinct m.body_id
  from lists l
  cross join member_node p on p.body_id = l.body_id and p.parent in (-1, 0)
  cross join member_node m on m.body_id = p.body_id and m.parent = p.node
  where m.key in (select name from vocabulary where vocabulary = 'next_token')
    and m.type not in ('null', 'false')
    and not (m.type = 'string' and m.value = '')
    and not (m.type in ('object', 'array'))
),
differing as (
  select distinct record_id from list_counters where is_counter = 0
  union
  -- Issue 18: a pagination key, a differing X-Total-Count or Content-Range, a Link rel="next".
  select distinct record_id from list_page_signals where is_set = 1
),
final as (
  select s.capture_id, s.record_id, s.ordinal, s.tool, s.list_pointer, s.entries,
         case when s.record_id in (select record_id from differing) or s.body_id in (select body_id from next_tokens)
              then 'recorded' else 'all' end as membership
  from lists s
)
select * from final;
