-- @rule   ES-35
-- @says   What says a list read shows a window or a page rather than every entity, beyond its body: a pagination key in its query (a window), an item-total response header (`X-Total-Count`) or a `Content-Range` complete length, each a counter when it equals the listed count, and a `Link` header with `rel="next"`.
-- @grain  one row per (list read record, signal: a pagination query key or a total, range or next header)
-- @reads  list_reads, query_param_roles, header, vocabulary
create view list_page_signals as
with lists as materialized (
  select * from list_reads
),
windows as (
  -- Issue 18: `_page=2&_limit=10`, `offset=20`, `cursor=…` mark a window of the collection.
  select s.capture_id, s.record_id, s.ordinal, s.tool, s.list_pointer, s.entries,
         'window' as signal, q.name, q.value, null as total
  from lists s
  join query_param_roles q on q.record_id = s.record_id and q.role = 'pagination'
),
headers as (
  select s.capture_id, s.record_id, s.ordinal, s.tool, s.list_pointer, s.entries, v.vocabulary as signal, h.name, h.value,
         case v.vocabulary when 'range_header' then trim(substr(h.value, instr(h.value, '/') + 1)) else trim(h.value) end as total_text
  from lists s
  join header h on h.record_id = s.record_id and h.side = 'response' and h.source = 'header' and h.value is not null
  join vocabulary v on v.vocabulary in ('total_header', 'next_header', 'range_header') and v.name = lower(h.name)
),
counted as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value,
         case when signal <> 'next_header' and total_text <> '' and total_text not glob '*[^0-9]*' then cast(total_text as integer) end as total
  from headers
  -- a Content-Range of another unit than items (bytes) says nothing about a list
  where signal <> 'range_header' or lower(value) not like 'bytes%'
),
signals as (
  select * from windows
  union all
  select * from counted
),
final as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value, total,
         -- ES-36: a header total equal to the listed count counts what is listed.
         coalesce(total = entries, 0) as is_counter,
         -- ES-35: a window is never all; a total that differs, or a next link, says the list is a page.
         case signal
           when 'window' then 1
           when 'next_header' then (instr(lower(replace(value, ' ', '')), 'rel="next"') > 0 or instr(lower(replace(value, ' ', '')), 'rel=next') > 0)
           else coalesce(total <> entries, 0)
         end as is_set
  from signals
)
select * from final;
