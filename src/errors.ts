/**
 * The one error shape for expected failures (bad input, failed checks). The CLI prints
 * `message` and `context` without a stack; `--json` and MCP return `toJSON()`.
 */
export interface ErrorContext {
  file?: string;
  /** 1-based record ordinal (HAR entry index + 1, scenario transaction order). */
  record?: number;
  /** JSON path inside the capture file, e.g. `log.entries[4].response.status`. */
  path?: string;
  /** Byte offset in the capture file. */
  offset?: number;
  [key: string]: unknown;
}

export class CapstateError extends Error {
  readonly code: string;
  readonly context: ErrorContext;
  /** Exit code for the CLI: 1 bad input or failed check, 2 usage. */
  readonly exitCode: 1 | 2;

  constructor(code: string, message: string, context: ErrorContext = {}, exitCode: 1 | 2 = 1) {
    super(message);
    this.name = 'CapstateError';
    this.code = code;
    this.context = context;
    this.exitCode = exitCode;
  }

  /**
   * `file: record #5 (log.entries[4].request.url): message`. The file is left out when the
   * message already names it (`t.txt is not a capstate store`), and the location when the
   * message already starts with it (`actions[0].bogus: unknown field …`), so neither is
   * printed twice.
   */
  describe(): string {
    const c = this.context;
    const where: string[] = [];
    if (c.file && !mentions(this.message, c.file)) where.push(c.file);
    const loc: string[] = [];
    if (c.record !== undefined) loc.push(`record #${c.record}`);
    if (c.path) loc.push(c.path);
    if (c.offset !== undefined && c.record === undefined) loc.push(`byte ${c.offset}`);
    const at = loc.length === 2 ? `${loc[0]} (${loc[1]})` : loc[0];
    if (at !== undefined && !this.message.startsWith(`${at}: `)) where.push(at);
    return `${where.length ? where.join(': ') + ': ' : ''}${this.message}`;
  }

  toJSON(): { ok: false; code: string; message: string; context: ErrorContext } {
    return { ok: false, code: this.code, message: this.message, context: this.context };
  }
}

/** Whether `text` names `file` as a whole word (so a file `t` is not found inside `at`). */
function mentions(text: string, file: string): boolean {
  for (let i = text.indexOf(file); i >= 0; i = text.indexOf(file, i + 1)) {
    const before = i === 0 ? '' : text[i - 1];
    const after = text.slice(i + file.length, i + file.length + 2);
    if (/^(|[\s"'`(\[])$/.test(before) && /^(|[\s"'`)\]:;,!?].?|\.\s?)$/.test(after)) return true;
  }
  return false;
}

/**
 * `s` as one word of a command a message tells the user to run: as it is when the shell reads
 * it so (a plain path), else in single quotes (a PostgreSQL URL holds `?` and `&`).
 */
export function shellWord(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
