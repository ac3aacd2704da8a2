-- @rule   DOC-1
-- @says   A GET tool whose path names a file (its template ends in `.webmanifest` or `.har`, or in `.json` with no other tool under its type root or its path) and whose records have one request line reads a document, not its root's collection (issue 18: a Web App Manifest is no type `manifest` with one entity) — unless, for `.json`, an answer lists objects with an identity member at its root or in the member the file is named for (issue 44: Redmine's `/trackers.json` is its collection read once).
-- @grain  one row per such tool
-- @reads  tool, record, member_node, vocabulary
create view file_documents as
with get_tools as (
  select id as tool_id, capture_id, root_path, lower(template) as template
  from tool
  where upper(method) = 'GET' and ends_in_param = 0
),
files as (
  select g.*,
         cast(g.template glob '*.webmanifest' or g.template glob '*.har' as integer) as is_file_type,
         cast(g.template glob '*.json' as integer) as is_json,
         -- The file's name without `.json` (`/enumerations/issue_priorities.json`: `issue_priorities`).
         replace(g.template, rtrim(g.template, replace(g.template, '/', '')), '') as file_name
  from get_tools g
),
lone as (
  -- `/issues.json` beside `/issues/{id}.json` is the API's format suffix, not a file; so it is
  -- beside a template under its path that has a root of its own (`/projects/{id}/memberships.json`).
  select f.*
  from files f
  where f.is_file_type = 1
     or (f.is_json = 1 and not exists (
       select 1 from tool o
       where o.capture_id = f.capture_id and o.id <> f.tool_id
         and (o.root_path = f.root_path or substr(o.template, 1, length(f.root_path) + 1) = f.root_path || '/'))
       -- Issue 44 kind 5: an answer listing objects with identities (Redmine's `/trackers.json`:
       -- a `trackers` array of trackers, each with its identity) at its root or in the member the
       -- file is named for is its collection read once, not a file (a Web App Manifest's
       -- `related_applications` carry identities too, but the file is no list of them).
       and not exists (
         select 1
         from record r
         join member_node a on a.body_id = r.response_body_id and a.type = 'array'
           and (a.parent = -1 or (a.parent = 0 and a.pointer = '/' || substr(f.file_name, 1, length(f.file_name) - 5)))
         join member_node e on e.body_id = a.body_id and e.parent = a.node and e.pointer = a.pointer || '/0' and e.type = 'object'
         join member_node i on i.body_id = e.body_id and i.parent = e.node
         where r.tool_id = f.tool_id and r.status between 200 and 299
           and i.key in (select name from vocabulary where vocabulary = 'identity')))
),
lines as (
  select l.tool_id, count(distinct r.path || '?' || coalesce(r.query, '')) as request_lines
  from lone l
  join record r on r.tool_id = l.tool_id
  group by l.tool_id
),
final as (
  select l.capture_id, l.tool_id, l.root_path
  from lone l
  join lines n on n.tool_id = l.tool_id
  where n.request_lines = 1
)
select * from final;
