-- @rule   none
-- @says   The admitted reads (glossary: read tool): records with a safe method (GET, HEAD, OPTIONS, TRACE) and query POSTs, with their tool, type root and timing, and whether their tool lists the type's own collection (a list template without parameters, or a nested collection under the flat list's root, that does not read a file document or the whole database).
-- @grain  one row per admitted read record
-- @reads  records_timeline, record, tool, vocabulary, file_documents, database_documents
create view read_records as
with timeline as (
  select capture_id, record_id, ordinal, timeline_position, timeline_order, started_ms, ended_ms
  from records_timeline
),
final as (
  select t.capture_id, t.record_id, t.ordinal, t.timeline_position, t.timeline_order, t.started_ms, t.ended_ms,
         r.method, r.status, r.response_body_id, o.id as tool_id, o.name as tool, o.root_path, o.ends_in_param,
         -- A list of the type's own collection: a list template with no parameter (`/api/teams/search`,
         -- not the sub-resource list `/api/teams/{id}/members`; decisions, ES-7).
         -- A file read on one request line (`/manifest.json`, DOC-1 / issue 18) lists nothing, nor does a
         -- read of the whole database (json-server's `/db`, DOC-7 / issue 46): its arrays are other types'.
         -- Issue 18: a nested collection the manifest gave the flat list's root (`/posts/{id}/comments`
         -- under `/comments`: its template does not start with its root) lists that collection.
         cast(o.ends_in_param = 0 and f.tool_id is null and d.tool_id is null
          and (instr(o.template, '{') = 0 or substr(o.template, 1, length(o.root_path) + 1) <> o.root_path || '/') as integer) as lists_collection
  from timeline t
  join record r on r.id = t.record_id
  join tool o on o.id = r.tool_id
  left join file_documents f on f.tool_id = o.id
  left join database_documents d on d.tool_id = o.id
  where upper(r.method) in (select name from vocabulary where vocabulary = 'safe_method')
     or (upper(r.method) = 'POST' and o.is_query_post = 1)
)
select * from final;
