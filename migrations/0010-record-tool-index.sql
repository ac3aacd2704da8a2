-- 0010 (issue 14): a tool's records by index. Serving, descriptions, DESC-4's statuses and
-- the state pass pick records by tool (`tool_id in (…)`); without an index each such query
-- scanned every record, once per tool in a join (tool_statuses: 0.5 s at 500 MB).
CREATE INDEX record_tool ON record (tool_id, status);
