-- @rule   none
-- @says   Successful reads of list templates whose body has a list (OQ-11), with the list's pointer and entry count: what membership and counters are judged on.
-- @grain  one row per successful list read with a list
-- @reads  read_records, list_locations
create view list_reads as
with final as (
  select r.capture_id, r.record_id, r.ordinal, r.tool, r.response_body_id as body_id, l.list_pointer, l.entries
  from read_records r
  join list_locations l on l.body_id = r.response_body_id
  where r.ends_in_param = 0 and r.status between 200 and 299
)
select * from final;
