/**
 * What inference hands the loader: the manifest of one capture and its tools (OQ-1 tools and
 * templates, OQ-2 subject, OQ-5 API base and type roots, OQ-7 query POSTs). The fact writer
 * (load/writer.ts) stores these as the `manifest`, `tool` and `path_param` rows.
 */
import type { SubjectSource } from './subject.js';

export interface InferredTool {
  name: string;
  method: string;
  template: string;
  rootPath: string;
  isQueryPost: boolean;
  /** The template's last segment is a parameter: an item template (glossary). */
  endsInParam: boolean;
  source: 'inferred' | 'override';
  records: { id: number; ordinal: number; params: { name: string; value: string }[] }[];
}

export interface InferredManifest {
  subjectOrigin: string;
  subjectSource: SubjectSource;
  apiBase: string;
  apiBaseSource: 'inferred' | 'override';
  notes: string[];
  tools: InferredTool[];
}
