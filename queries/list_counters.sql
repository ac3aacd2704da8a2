-- @rule   ES-36
-- @says   An item-total envelope member of a list read (total, count and compounds, not page counts; top level or in a top-level object beside the list), and whether it equals the listed count (a counter).
-- @grain  one row per (list read record, item-total member)
-- @reads  list_reads, member_node, vocabulary
create view list_counters as
with lists as materialized (
  select * from list_reads
),
totals as (
  -- Numbers at the top level of an object body, or in a top-level object: walked down from
  -- the root (each node's children are one key range of member_node); a number's pointer is
  -- its parent's plus its escaped name (RFC 6901).
  select s.*, r.pointer || '/' || replace(replace(m.key, '~', '~0'), '/', '~1') as pointer, m.value,
         replace(replace(lower(m.key), '_', ''), '-', '') as plain
  from lists s
  cross join member_node r on r.body_id = s.body_id and r.parent = -1 and r.type = 'object' -- cross: in this order
  cross join member_node m on m.body_id = r.body_id and m.parent = r.node
  where m.type in ('integer', 'real')
  union all
  select s.*, p.pointer || '/' || replace(replace(m.key, '~', '~0'), '/', '~1') as pointer, m.value,
         replace(replace(lower(m.key), '_', ''), '-', '') as plain
  from lists s
  cross join member_node r on r.body_id = s.body_id and r.parent = -1 and r.type = 'object'
  cross join member_node p on p.body_id = r.body_id and p.parent = r.node and p.type = 'object'
  cross join member_node m on m.body_id = p.body_id and m.parent = p.node
  where m.type in ('integer', 'real')
),
final as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, pointer as member_pointer, value,
         cast(cast(value as numeric) = entries as integer) as is_counter
  from totals
  -- ES-36: the name contains an item-total word and no page-total word (vocabulary).
  where exists (select 1 from vocabulary v where v.vocabulary = 'item_total' and instr(plain, v.name) > 0)
    and not exists (select 1 from vocabulary v where v.vocabulary = 'page_total' and instr(plain, v.name) > 0)
)
select * from final;
