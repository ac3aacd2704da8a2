/**
 * Facts view-facts.ts does not insert, for views that read them: a record of no tool (OQ-3:
 * another origin's exchange, kept but no primary source) and a response body that is not
 * usable (ES-4: kept, with no members). Each turns a record `FactStore.record` inserted into
 * one, so record ordinals keep counting in one place.
 */
import type { FactStore } from './view-facts.js';

/** Detaches the record from its tool, as the loader stores a record no manifest tool admits. */
export function withoutTool(f: FactStore, recordId: number): void {
  f.db.prepare('update record set tool_id = null where id = ?').run(recordId);
}

/** Gives the record a response body that is kept but not usable (ES-4): no members. */
export function unusableBody(f: FactStore, recordId: number, content = '<html>not json</html>'): void {
  const body = Number(
    f.db
      .prepare("insert into body (sha256, bytes, kind, is_usable, unusable_reason, content) values (?, ?, 'text', 0, 'not-json', ?)")
      .run(`text-${recordId}`, Buffer.byteLength(content), content).lastInsertRowid,
  );
  f.db.prepare('update record set response_body_id = ? where id = ?').run(body, recordId);
}
