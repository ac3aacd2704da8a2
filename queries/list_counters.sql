-- @rule   ES-36
-- @says   An item-total envelope member of a list read (total, count and compounds, not page counts; top level or in a top-level object beside the list), and whether it equals the listed count (a counter).
-- @grain  one row per (list read record, item-total member)
-- @reads  list_reads, member, vocabulary
create view list_counters as
with lists as materialized (
  select * from list_reads
),
totals as (
  -- Numbers at the top level of an object body, or in a top-level object; the root and each
  -- number's parent are looked up by pointer (a search per member was quadratic, issue 14).
  select s.*, m.pointer, m.value,
         replace(replace(lower(m.key), '_', ''), '-', '') as plain
  from lists s
  join member r on r.body_id = s.body_id and r.pointer = '' and r.type = 'object'
  join member m on m.body_id = s.body_id
  left join member p on p.body_id = m.body_id and p.pointer = m.parent_pointer
  where m.type in ('integer', 'real') and m.depth <= 2 -- said apart, so only these look their parent up
    and (m.depth = 1 or (m.depth = 2 and p.depth = 1 and p.type = 'object'))
),
final as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, pointer as member_pointer, value,
         value = entries as is_counter
  from totals
  -- ES-36: the name contains an item-total word and no page-total word (vocabulary).
  where exists (select 1 from vocabulary v where v.vocabulary = 'item_total' and instr(plain, v.name) > 0)
    and not exists (select 1 from vocabulary v where v.vocabulary = 'page_total' and instr(plain, v.name) > 0)
)
select * from final;
