-- @rule   DOC-7
-- @says   A GET tool with no parameter whose every successful JSON answer is an object, each of whose members names another parameterless GET tool beside it (`/db`'s `posts` names `/posts`) and has the shape that tool answers (an array where it lists, an object where it answers one), at least one of them an array, reads the whole database (json-server's `/db`): a document, not a type of its own (issue 46).
-- @grain  one row per such tool
-- @reads  tool, record, body, member_node
create view database_documents as
with get_tools as materialized (
  select id as tool_id, capture_id, root_path, template
  from tool
  where upper(method) = 'GET' and ends_in_param = 0 and instr(template, '{') = 0
),
answers as materialized (
  -- Every successful JSON answer of such a tool.
  select g.capture_id, g.tool_id, g.template, r.id as record_id, r.response_body_id as body_id
  from get_tools g
  join record r on r.tool_id = g.tool_id
  join body b on b.id = r.response_body_id
  where r.status between 200 and 299 and b.kind = 'json'
),
nodes as materialized (
  -- Each answer's root (node 0) and its members, by key lookups: the view's one read of
  -- member_node, as read_records reads this view and every view after it reads read_records
  -- (SQLite counts each table's references in a statement, at most 65,535).
  select a.record_id, n.parent, n.node, n.key, n.type
  from answers a
  join member_node n on n.body_id = a.body_id and n.parent in (-1, 0)
),
neighbour_shapes as materialized (
  -- The root shapes each tool answers, keyed by its template (`/posts` answers arrays).
  select distinct a.capture_id, a.tool_id, a.template, n.type as root_type
  from answers a
  join nodes n on n.record_id = a.record_id and n.parent = -1
),
named_members as materialized (
  -- A member of an answer's root that names a neighbour tool answering its shape: a tool in the
  -- same directory (`/api/posts` beside `/api/db`) whose last segment is the member's key.
  select a.tool_id, a.record_id, m.node, m.type
  from answers a
  join nodes m on m.record_id = a.record_id and m.parent = 0
  where exists (
    select 1 from neighbour_shapes s
    where s.capture_id = a.capture_id and s.tool_id <> a.tool_id and s.root_type = m.type
      and length(s.template) >= length(m.key) + 1
      and substr(s.template, length(s.template) - length(m.key)) = '/' || m.key
      and substr(a.template, 1, length(s.template) - length(m.key)) = substr(s.template, 1, length(s.template) - length(m.key))
      and instr(substr(a.template, length(s.template) - length(m.key) + 1), '/') = 0)
),
whole_answers as (
  -- An object answer every member of which is named, one of them an array.
  select a.tool_id, a.record_id
  from answers a
  join nodes r on r.record_id = a.record_id and r.parent = -1 and r.type = 'object'
  where exists (select 1 from named_members n where n.record_id = a.record_id and n.type = 'array')
    and not exists (
      select 1 from nodes m
      where m.record_id = a.record_id and m.parent = 0
        and not exists (select 1 from named_members n where n.record_id = a.record_id and n.node = m.node))
),
final as (
  select g.capture_id, g.tool_id, g.root_path
  from get_tools g
  where exists (select 1 from whole_answers w where w.tool_id = g.tool_id)
    and not exists (
      select 1 from answers a
      where a.tool_id = g.tool_id
        and not exists (select 1 from whole_answers w where w.record_id = a.record_id))
)
select * from final;
