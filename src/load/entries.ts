/**
 * The parse side of a load: split the capture, parse each value, read HAR entries into
 * records and classify their bodies (bodies.ts, ES-4/ES-5), so the writing side only
 * stores. It runs in a worker thread (parse-worker.ts) while the main thread writes; what
 * it produces is plain data a structured clone carries (no URL objects, no exact values).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { CapstateError, type ErrorContext } from '../errors.js';
import { classifyRetainedBody, type BodyKind, type RetainedBody, type UnusableReason } from './bodies.js';
import type { Obj } from './fields.js';
import { readHarEntry } from './har.js';
import type { InflateBudget } from './inflate-budget.js';
import { Redactor, SensitiveLiterals } from './secrets.js';
import { CleanBodies, SecretCollector } from './secret-collect.js';
import { formatPath, splitJson, type JsonPath, type Piece } from './split.js';
import type { LoadedRecord } from './writer.js';

/** A classified body as the writer stores it. `content` is what `sha256` covers. */
export interface BodyOut {
  kind: BodyKind;
  sha256: string;
  byteLength: number;
  content: string | Buffer;
  isUsable: boolean;
  reason: UnusableReason | null;
  /** The body owner accepted `content` for flattening by json_tree (ES-5, member-tree.ts). */
  isTreeText: boolean;
}

/** A HAR entry's record without its URL object (rebuilt from `rawUrl` by the writer's side). */
export type RecordOut = Omit<LoadedRecord, 'requestBodyId' | 'responseBodyId' | 'url'>;

export type ParseOut =
  | { t: 'credentials'; values: string[] }
  | { t: 'container'; path: JsonPath }
  | { t: 'bytes'; bytesRead: number }
  | { t: 'entry'; index: number; record: RecordOut; request: BodyOut; response: BodyOut }
  /** Anything else the splitter yields (root members, pages, scenario events), still raw. */
  | { t: 'piece'; piece: Piece };

export interface ParseOptions {
  /** Literals declared with `--sensitive`: a body carrying one is refused. */
  sensitive: string[];
  /**
   * The first pass's share 1, found by another thread (pipeline.ts); this side then scans
   * share 0 only. Resolves to null when that thread could not finish its share.
   */
  otherShare?: Promise<FirstPassFinds | null>;
  /** The capture's decompression budget (inflate-budget.ts): Content-Encoding bodies are charged to it. */
  inflate?: InflateBudget;
}

export function parsePiece(file: string, p: Piece): unknown {
  const text = p.bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    const record = p.path[0] === 'log' && p.path[1] === 'entries' ? (p.path[2] as number) + 1 : undefined;
    // JSON.parse counts UTF-16 units from the value's start; the reader wants the file's byte.
    const msg = (e as Error).message;
    const m = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(msg);
    const inValue = m ? Buffer.byteLength(text.slice(0, Number(m[1]))) : p.bytes.length;
    const offset = p.offset + inValue;
    const lc = lineColumn(file, offset);
    const at = `at byte ${offset} of the file${lc ? ` (line ${lc.line}, column ${lc.column})` : ''}`;
    const what = m ? msg.slice(0, m.index) + msg.slice(m.index + m[0].length) : msg;
    throw new CapstateError('bad-json', `not valid JSON: ${what} ${at}`, {
      file,
      record,
      path: formatPath(p.path),
      offset,
      ...(lc ? { line: lc.line, column: lc.column } : {}),
    });
  }
}

/**
 * 1-based line and column (in characters) of byte `offset` in `file`, read again on this
 * error path only. Null when the file cannot be read.
 */
export function lineColumn(file: string, offset: number): { line: number; column: number } | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    let line = 1;
    let column = 1;
    for (let pos = 0; pos < offset; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
      if (n <= 0) return null;
      for (let i = 0; i < n; i++) {
        const c = buf[i];
        if (c === 10) {
          line++;
          column = 1;
        } else if ((c & 0xc0) !== 0x80) column++; // UTF-8 continuation bytes are not characters
      }
      pos += n;
    }
    return { line, column };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Counts object keys in a parsed value, to compare with the splitter's `:` count (duplicate keys). */
function countKeys(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  if (Array.isArray(v)) {
    let n = 0;
    for (const x of v) n += countKeys(x);
    return n;
  }
  let n = 0;
  for (const k in v as object) {
    n++;
    n += countKeys((v as Record<string, unknown>)[k]);
  }
  return n;
}

/** Finds the first duplicate key's path in raw JSON bytes (slow path, only after a mismatch). */
function findDuplicateKey(text: string): string {
  // A tiny recursive-descent walk over the structure; strings are skipped with JSON.parse.
  let i = 0;
  const path: (string | number)[] = [];
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') {
      if (text[i] === '\\') i++;
      i++;
    }
    i++;
    return JSON.parse(text.slice(start, i));
  };
  let found: string | null = null;
  const value = (): void => {
    ws();
    if (found) return;
    if (text[i] === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        i++; // ':'
        if (seen.has(k)) {
          found = formatPath([...path, k]);
          return;
        }
        seen.add(k);
        path.push(k);
        value();
        path.pop();
        if (found) return;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++;
        return;
      }
    } else if (text[i] === '[') {
      i++;
      ws();
      let n = 0;
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        path.push(n++);
        value();
        path.pop();
        if (found) return;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        i++;
        return;
      }
    } else if (text[i] === '"') str();
    else while (i < text.length && !',}] \t\n\r'.includes(text[i])) i++;
  };
  value();
  return found ?? '';
}

export function checkDuplicates(file: string, p: Piece, value: unknown, record: number | undefined): void {
  if (countKeys(value) === p.keyCount) return;
  const inner = findDuplicateKey(p.bytes.toString('utf8'));
  const path = formatPath(p.path) + (inner.startsWith('[') || inner === '' ? inner : '.' + inner);
  throw new CapstateError(
    'duplicate-key',
    'a member name appears twice in one object, so the capture is ambiguous here; fix or re-export the capture',
    { file, record, path },
  );
}

/** One share of the first pass: the entries (and events) whose index is `part` modulo `parts`; root members go to part 0. */
export interface FirstPassShare {
  parts: number;
  part: number;
  /** Stops the share early (its load ended before it was needed); what it found so far is returned. */
  signal?: AbortSignal;
}

/** What one share of the first pass found: its credential values and its clean-body bits (CleanBodies). */
export interface FirstPassFinds {
  values: string[];
  clean: Uint8Array;
}

/**
 * First pass: the credential values this capture carries (secret-collect.ts), so the
 * second pass can keep them out of bodies, URLs and other headers that echo them (a login
 * response returning the bearer token, a session id in a Referer). Costs one more parse.
 * `clean` (when given) learns which bodies held no credential-named value, so the second
 * pass does not scan them for names again. With `share`, only that share's values are
 * parsed and scanned (both threads of a load take one each: pipeline.ts); every share
 * still splits the whole file.
 */
export async function collectCredentials(
  file: string,
  clean?: CleanBodies,
  share: FirstPassShare = { parts: 1, part: 0 },
): Promise<Set<string>> {
  const found = new SecretCollector();
  const mine = (index: number) => index % share.parts === share.part;
  for await (const p of splitJson(file, { stream: [['log', 'entries'], ['events']] })) {
    if (share.signal?.aborted) break;
    const isEntry = p.path[0] === 'log' && p.path[1] === 'entries';
    const isPages = p.path[0] === 'log' && p.path[1] === 'pages';
    const isEvent = p.path[0] === 'events';
    if (!isEntry && !isPages && !isEvent && p.path[0] !== 'scenario') continue;
    if (isEntry ? !mine(p.path[2] as number) : isEvent ? !mine(p.path[1] as number) : share.part !== 0) continue;
    let v: unknown;
    try {
      v = JSON.parse(p.bytes.toString('utf8'));
    } catch {
      continue;
    } // the second pass reports it
    if (isPages) found.pages(v);
    else if (!v || typeof v !== 'object') continue;
    else if (isEntry) {
      const scanned = found.entry(v as Obj);
      const index = p.path[2] as number;
      clean?.note(index, 'request', scanned.requestBodyClean);
      clean?.note(index, 'response', scanned.responseBodyClean);
    } else if (isEvent) found.event(v as Obj);
    else found.scenario(v);
  }
  return found.values;
}

/**
 * Refuses a body carrying a declared literal, replaces credential values (BS-65:
 * digests describe the retained representation after redaction), classifies what remains.
 * `where` names the body in errors. The writer's `writeBody` does the same on its thread.
 */
export function classifyForStore(
  retained: RetainedBody,
  side: 'request' | 'response',
  sensitive: SensitiveLiterals,
  redactor: Redactor,
  where: ErrorContext,
  namesClean = false,
): BodyOut {
  if (sensitive.size > 0 && sensitive.find(retained.bytes ?? retained.text) !== -1) {
    throw new CapstateError(
      'sensitive-value',
      `the ${side} body carries a value declared with --sensitive; remove or redact it in the capture and load again`,
      where,
    );
  }
  // Credential values (by name, and echoed) are replaced before hashing (secrets.ts).
  const b = classifyRetainedBody(redactor.body(retained, namesClean));
  // A Buffer may view a larger pooled allocation, which a structured clone would copy whole.
  const content = typeof b.content === 'string' ? b.content : Buffer.from(new Uint8Array(b.content));
  return {
    kind: b.kind,
    sha256: b.sha256,
    byteLength: b.bytes.length,
    content,
    isUsable: b.isUsable,
    reason: b.reason,
    isTreeText: b.treeText !== undefined,
  };
}

/** Everything the writing side needs from `file`, in file order. Throws CapstateError for bad input. */
export async function* parseCapture(file: string, opts: ParseOptions): AsyncGenerator<ParseOut> {
  const clean = new CleanBodies();
  const credentials = await collectCredentials(file, clean, opts.otherShare ? { parts: 2, part: 0 } : undefined);
  if (opts.otherShare) {
    // The other thread's share; if it could not finish, this thread scans it too.
    const other = await opts.otherShare;
    if (other) {
      for (const v of other.values) credentials.add(v);
      clean.merge(other.clean);
    } else for (const v of await collectCredentials(file, clean, { parts: 2, part: 1 })) credentials.add(v);
  }
  yield { t: 'credentials', values: [...credentials] };
  const redactor = new Redactor(credentials);
  const sensitive = new SensitiveLiterals(opts.sensitive);
  const pending: ParseOut[] = [];
  const pieces = splitJson(file, {
    stream: [['log', 'entries'], ['events']],
    onContainer: (path) => {
      pending.push({ t: 'container', path });
    },
    onBytes: (bytesRead) => {
      pending.push({ t: 'bytes', bytesRead });
    },
  });
  for await (const p of pieces) {
    // Containers open and chunks end between pieces: hand those over in their place.
    while (pending.length) yield pending.shift()!;
    if (p.path[0] === 'log' && p.path[1] === 'entries') {
      const index = p.path[2] as number;
      const value = parsePiece(file, p);
      checkDuplicates(file, p, value, index + 1);
      const out = readHarEntry(file, index, value, opts.inflate);
      const at = (path: string) => ({ file, record: index + 1, path: `log.entries[${index}].${path}` });
      const request = classifyForStore(
        out.requestBody,
        'request',
        sensitive,
        redactor,
        at('request.postData'),
        clean.has(index, 'request'),
      );
      const response = classifyForStore(
        out.responseBody,
        'response',
        sensitive,
        redactor,
        at('response.content.text'),
        clean.has(index, 'response'),
      );
      const { url: _url, ...record } = out.record;
      yield { t: 'entry', index, record, request, response };
    } else {
      // Copied out of the 1 MiB chunk it views, which a structured clone would carry whole.
      yield { t: 'piece', piece: { ...p, bytes: Buffer.from(new Uint8Array(p.bytes)) } };
    }
  }
  while (pending.length) yield pending.shift()!;
}
