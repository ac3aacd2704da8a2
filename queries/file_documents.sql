-- @rule   DOC-1
-- @says   A GET tool whose path names a file (its template ends in `.webmanifest` or `.har`, or in `.json` with no other tool under its type root or its path) and whose records have one request line reads a document, not its root's collection (issue 18: a Web App Manifest is no type `manifest` with one entity).
-- @grain  one row per such tool
-- @reads  tool, record
create view file_documents as
with get_tools as (
  select id as tool_id, capture_id, root_path, lower(template) as template
  from tool
  where upper(method) = 'GET' and ends_in_param = 0
),
files as (
  select g.*,
         cast(g.template glob '*.webmanifest' or g.template glob '*.har' as integer) as is_file_type,
         cast(g.template glob '*.json' as integer) as is_json
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
         and (o.root_path = f.root_path or substr(o.template, 1, length(f.root_path) + 1) = f.root_path || '/')))
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
