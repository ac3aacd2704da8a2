-- @rule   ES-35
-- @says   What says a list read shows a window or a page rather than every entity, beyond its body: a pagination key in its query (a window, unless it starts at the first item and lists fewer than its size, or as many as a counter counts), an item-total response header (`X-Total-Count`) or a `Content-Range` complete length, each a counter when it equals the listed count, and a `Link` header with `rel="next"`.
-- @grain  one row per (list read record, signal: a pagination query key or a total, range or next header)
-- @reads  list_reads, list_counters, query_param_roles, header, vocabulary
create view list_page_signals as
with lists as materialized (
  select * from list_reads
),
window_keys as materialized (
  -- (Materialized: two parts read it, and its role lookup is a scan of the vocabulary per key.)
  -- Issue 18: `_page=2&_limit=10`, `offset=20`, `cursor=…` mark a window of the collection;
  -- what each key's value means comes from the window_* vocabularies (none: an opaque cursor).
  select s.capture_id, s.record_id, s.ordinal, s.tool, s.list_pointer, s.entries, q.name, q.value,
         (select v.vocabulary from vocabulary v where v.vocabulary like 'window\_%' escape '\' and v.name = q.bare_name) as role,
         cast(q.value <> '' and q.value not glob '*[^0-9]*' as integer) as is_number
  from lists s
  join query_param_roles q on q.record_id = s.record_id and q.role = 'pagination'
),
window_reads as (
  -- A window that starts at the first item (no offset but 0, no page but 1, no cursor) and
  -- lists fewer than its size (or `limit=all`), or as many as a counter counts, is the whole list.
  select record_id,
         max(cast(role is null or (role = 'window_offset' and not (is_number = 1 and cast(value as integer) = 0))
             or (role = 'window_page' and not (is_number = 1 and cast(value as integer) = 1)) as integer)) as is_later,
         max(cast((role = 'window_size' and (is_number = 0 or cast(value as integer) > entries))
             or (role = 'window_end' and is_number = 1 and cast(value as integer) > entries) as integer)) as is_short
  from window_keys
  group by record_id
),
counted as materialized (
  select distinct record_id from list_counters where is_counter = 1
),
headers as (
  -- `cross join` keeps the list reads outermost, each looking up its own headers by key: left
  -- to itself SQLite scanned every header of the capture (2 million at 200 MB, issue 49).
  select s.capture_id, s.record_id, s.ordinal, s.tool, s.list_pointer, s.entries, v.vocabulary as signal, h.name, h.value,
         case v.vocabulary when 'range_header' then trim(substr(h.value, instr(h.value, '/') + 1)) else trim(h.value) end as total_text
  from lists s
  cross join header h on h.record_id = s.record_id and h.side = 'response' and h.source = 'header' and h.value is not null
  join vocabulary v on v.vocabulary in ('total_header', 'next_header', 'range_header') and v.name = lower(h.name)
),
header_totals as materialized (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value,
         case when signal <> 'next_header' and total_text <> '' and total_text not glob '*[^0-9]*' then cast(total_text as integer) end as total
  from headers
  -- a Content-Range of another unit than items (bytes) says nothing about a list
  where signal <> 'range_header' or lower(value) not like 'bytes%'
),
windows as (
  select k.capture_id, k.record_id, k.ordinal, k.tool, k.list_pointer, k.entries, 'window' as signal, k.name, k.value, cast(null as integer) as total,
         cast(not (w.is_later = 0 and (w.is_short = 1 or k.record_id in (select record_id from counted)
              or k.record_id in (select record_id from header_totals where total = entries))) as integer) as is_window
  from window_keys k
  join window_reads w on w.record_id = k.record_id
),
signals as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value, total, is_window from windows
  union all
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value, total, 0 from header_totals
),
final as (
  select capture_id, record_id, ordinal, tool, list_pointer, entries, signal, name, value, total,
         -- ES-36: a header total equal to the listed count counts what is listed.
         coalesce(cast(total = entries as integer), 0) as is_counter,
         -- ES-35: a window is never all; a total that differs, or a next link, says the list is a page.
         case signal
           when 'window' then is_window
           when 'next_header' then cast(instr(lower(replace(value, ' ', '')), 'rel="next"') > 0 or instr(lower(replace(value, ' ', '')), 'rel=next') > 0 as integer)
           else coalesce(cast(total <> entries as integer), 0)
         end as is_set
  from signals
)
select * from final;
