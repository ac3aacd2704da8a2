-- @rule   none
-- @says   Each record's response JSON members, for exploring captures with SQL (the members of usable bodies only, ES-4).
-- @grain  one row per (record, member)
-- @reads  record, member
create view response_members as
with records as (
  select id as record_id, capture_id, ordinal, method, path, query, status, response_body_id
  from record
),
final as (
  select r.capture_id, r.ordinal, r.record_id, r.method, r.path, r.query, r.status,
         m.pointer, m.parent_pointer, m.key, m.position, m.depth, m.type, m.value
  from records r
  join member m on m.body_id = r.response_body_id
)
select * from final;
