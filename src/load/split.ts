/**
 * Streaming splitter: reads a JSON capture file in chunks and yields the values a loader
 * needs (root members, members of descended objects, elements of streamed arrays) as raw
 * bytes, so memory stays one chunk plus one value whatever the file's size.
 *
 * Why not a token-streaming library: they run at 11–21 MB/s on this hardware, a byte
 * splitter plus JSON.parse per value at ~120 MB/s (../shared/perf-baselines.md).
 */
import { open } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { CapstateError } from '../errors.js';

export type JsonPath = (string | number)[];

export interface Piece {
  /** Path from the root: `['log','entries',3]`, `['log','pages']`, `['schema_version']`. */
  path: JsonPath;
  bytes: Buffer;
  /** Byte offset of the value's first byte in the file. */
  offset: number;
  /** Number of object keys inside the value (counted from `:` bytes), to detect duplicates. */
  keyCount: number;
}

export interface SplitOptions {
  /** Arrays whose elements are yielded one by one, e.g. `[['log','entries']]`. */
  stream: string[][];
  chunkBytes?: number;
  /** Called after each chunk's pieces were consumed, with the bytes read so far. */
  onBytes?: (bytesRead: number) => void;
  /** Called when a descended object or streamed array opens (e.g. `['log','entries']`). */
  onContainer?: (path: JsonPath) => void;
}

/** Nesting deeper than this is bad input (no capture producer nests this deep). */
export const MAX_NESTING = 1000;
/** One value larger than this cannot be parsed safely (V8's string limit is ~512 MiB). */
export const MAX_VALUE_BYTES = 256 * 1024 * 1024;
/** The smallest read from the file, whatever the parse chunk. */
const READ_BYTES = 64 * 1024;

const enum C {
  Quote = 34,
  Backslash = 92,
  LBrace = 123,
  RBrace = 125,
  LBracket = 91,
  RBracket = 93,
  Comma = 44,
  Colon = 58,
  Space = 32,
  Tab = 9,
  LF = 10,
  CR = 13,
}

interface Frame {
  isArray: boolean;
  path: JsonPath;
  /** object: 'key' | 'colon' | 'value' | 'comma'; array: 'value' | 'comma' */
  expect: 'key' | 'colon' | 'value' | 'comma' | 'first';
  key: string | null;
  index: number;
  stream: boolean;
  /** Member names seen in a structural object, to refuse duplicates (`"entries"` twice). */
  keys: Set<string>;
}

function pathKey(p: JsonPath): string {
  return JSON.stringify(p);
}

/** Formats a path as `log.entries[3].request.url`. */
export function formatPath(path: JsonPath): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += (out ? '.' : '') + p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out || '(root)';
}

/**
 * Yields the pieces of `file` described by `opts.stream`. Throws CapstateError
 * `bad-json` / `truncated` / `too-deep` / `value-too-large` / `invalid-utf8` with the
 * file, byte offset and JSON path.
 */
export async function* splitJson(file: string, opts: SplitOptions): AsyncGenerator<Piece> {
  const streamPaths = new Set(opts.stream.map(pathKey));
  const prefixes = new Set<string>();
  for (const s of opts.stream) for (let i = 0; i < s.length; i++) prefixes.add(pathKey(s.slice(0, i)));

  const fh = await open(file, 'r');
  // 1 MiB: each piece views the block it was cut from until collected; 4 MiB blocks held ~10 MB
  // more at a load's peak (h500, bench/README.md), at no measurable speed.
  const chunkBytes = opts.chunkBytes ?? 1024 * 1024;
  const fail = (code: string, message: string, offset: number, path: JsonPath): never => {
    // Inside a HAR entry the record is known: name it (1-based ordinal).
    const record = path[0] === 'log' && path[1] === 'entries' && typeof path[2] === 'number' ? path[2] + 1 : undefined;
    throw new CapstateError(code, message, { file, record, path: formatPath(path), offset });
  };

  const stack: Frame[] = [];
  let seenRoot = false;
  let rootDone = false;
  // Inside a captured value:
  let capturing = false;
  let capDepth = 0; // nesting depth inside the captured value
  let capPath: JsonPath = [];
  let capOffset = 0;
  let capKeys = 0;
  let capScalar = false;
  let capPieces: Buffer[] = [];
  let capBytes = 0;
  // String state (structural key strings and strings inside captures):
  let inStr = false;
  let carryBackslash = false; // odd run of backslashes at the previous chunk's end (reset when a string opens)
  let keyPieces: Buffer[] | null = null; // collecting a structural key
  let base = 0; // file offset of the current chunk

  const out: Piece[] = [];

  const finishCapture = (chunk: Buffer, end: number) => {
    const last = chunk.subarray(capChunkStart, end);
    const bytes = capPieces.length === 0 ? last : Buffer.concat([...capPieces, last]);
    if (bytes.length > MAX_VALUE_BYTES) {
      fail(
        'value-too-large',
        `one value is ${bytes.length} bytes; capstate reads values up to ${MAX_VALUE_BYTES} bytes. Split the capture or remove the oversized body.`,
        capOffset,
        capPath,
      );
    }
    if (!isUtf8(bytes)) fail('invalid-utf8', 'the file is not valid UTF-8 here; re-export the capture as UTF-8 JSON', capOffset, capPath);
    out.push({ path: capPath, bytes, offset: capOffset, keyCount: capKeys });
    capturing = false;
    capPieces = [];
    capBytes = 0;
    afterValue();
  };
  let capChunkStart = 0;

  const afterValue = () => {
    const top = stack[stack.length - 1];
    if (!top) {
      rootDone = true;
      return;
    }
    top.expect = 'comma';
  };

  const childPath = (top: Frame): JsonPath => (top.isArray ? [...top.path, top.index] : [...top.path, top.key as string]);

  try {
    // The file is read in blocks of at least READ_BYTES and parsed `chunkBytes` at a time: small
    // chunks (the tests' 1-byte boundaries) cost no extra reads, so they stay fast on a busy machine.
    const readBytes = Math.max(chunkBytes, READ_BYTES);
    let block = Buffer.alloc(0);
    let blockPos = 0;
    for (;;) {
      if (blockPos >= block.length) {
        const fresh = Buffer.allocUnsafe(readBytes);
        const { bytesRead: got } = await fh.read(fresh, 0, readBytes, base);
        if (got === 0) break;
        block = fresh.subarray(0, got);
        blockPos = 0;
      }
      const buf = block.subarray(blockPos, Math.min(blockPos + chunkBytes, block.length));
      blockPos += buf.length;
      const bytesRead = buf.length;
      const len = buf.length;
      let i = 0;
      // Some Windows tools start a HAR with a UTF-8 byte order mark.
      if (base === 0 && len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3;
      if (capturing) capChunkStart = 0;
      const chunkStartedInString = inStr;

      while (i < len) {
        if (inStr) {
          // Jump to the next quote; it ends the string unless an odd run of backslashes precedes it.
          let q = buf.indexOf(C.Quote, i);
          let closed = false;
          while (q !== -1) {
            let run = 0;
            let k = q - 1;
            while (k >= 0 && buf[k] === C.Backslash) {
              run++;
              k--;
            }
            let odd = (run & 1) === 1;
            if (k < 0 && chunkStartedInString && carryBackslash) odd = !odd;
            if (!odd) {
              closed = true;
              break;
            }
            q = buf.indexOf(C.Quote, q + 1);
          }
          if (!closed) {
            // String continues into the next chunk: remember the parity of the trailing run.
            let run = 0;
            let k = len - 1;
            while (k >= i && buf[k] === C.Backslash) {
              run++;
              k--;
            }
            let odd = (run & 1) === 1;
            if (k < 0 && chunkStartedInString && carryBackslash) odd = !odd;
            carryBackslash = odd;
            if (keyPieces) keyPieces.push(Buffer.from(buf.subarray(i, len)));
            i = len;
            break;
          }
          if (keyPieces) {
            keyPieces.push(buf.subarray(i, q));
            const raw = Buffer.concat(keyPieces);
            keyPieces = null;
            const top = stack[stack.length - 1];
            let key: string;
            try {
              key = JSON.parse('"' + raw.toString('utf8') + '"');
            } catch {
              fail('bad-json', 'invalid string escape in a key', base + q, top.path);
            }
            if (top.keys.has(key!)) {
              fail(
                'duplicate-key',
                `the member "${key!}" appears twice in one object, so the capture is ambiguous here; fix or re-export the capture`,
                base + q,
                [...top.path, key!],
              );
            }
            top.keys.add(key!);
            top.key = key!;
            top.expect = 'colon';
          }
          inStr = false;
          i = q + 1;
          if (capturing && capDepth === 0) finishCapture(buf, i);
          continue;
        }

        const c = buf[i];
        if (capturing) {
          if (capScalar) {
            if (c === C.Comma || c === C.RBrace || c === C.RBracket || c === C.Space || c === C.Tab || c === C.LF || c === C.CR) {
              finishCapture(buf, i);
              continue; // re-read the delimiter structurally
            }
            i++;
            continue;
          }
          if (c === C.Quote) {
            inStr = true;
            carryBackslash = false; // a string opened here: no backslash run before it is its own
            i++;
            continue;
          }
          if (c === C.LBrace || c === C.LBracket) {
            capDepth++;
            if (stack.length + capDepth > MAX_NESTING)
              fail(
                'too-deep',
                `nesting deeper than ${MAX_NESTING} levels; no capture producer writes this, so the file is corrupt or not a capture: remove the deeply nested value or re-export`,
                base + i,
                capPath,
              );
          } else if (c === C.RBrace || c === C.RBracket) {
            capDepth--;
            if (capDepth === 0) {
              i++;
              finishCapture(buf, i);
              continue;
            }
          } else if (c === C.Colon) capKeys++;
          i++;
          continue;
        }

        // Structural level: the root object, descended objects and streamed arrays.
        if (c === C.Space || c === C.Tab || c === C.LF || c === C.CR) {
          i++;
          continue;
        }
        if (rootDone) fail('bad-json', 'unexpected data after the end of the JSON document', base + i, []);
        const top = stack[stack.length - 1];
        if (!seenRoot) {
          if (c !== C.LBrace)
            fail(
              'bad-json',
              i === 0 && base === 0
                ? 'the file does not start with a JSON object; capstate reads HAR 1.2 files and scenario Evidence JSON'
                : 'expected a JSON object',
              base + i,
              [],
            );
          seenRoot = true;
          stack.push({ isArray: false, path: [], expect: 'first', key: null, index: 0, stream: false, keys: new Set() });
          i++;
          continue;
        }
        if (top.expect === 'comma' || top.expect === 'first') {
          if (c === (top.isArray ? C.RBracket : C.RBrace)) {
            stack.pop();
            i++;
            afterValue();
            continue;
          }
          if (top.expect === 'comma') {
            if (c !== C.Comma) fail('bad-json', `expected ',' or '${top.isArray ? ']' : '}'}'`, base + i, top.path);
            if (top.isArray) top.index++;
            top.expect = top.isArray ? 'value' : 'key';
            i++;
            continue;
          }
          top.expect = top.isArray ? 'value' : 'key';
        }
        if (top.expect === 'key') {
          if (c !== C.Quote) fail('bad-json', 'expected a member name', base + i, top.path);
          inStr = true;
          carryBackslash = false; // a string opened here: no backslash run before it is its own
          keyPieces = [];
          i++;
          continue;
        }
        if (top.expect === 'colon') {
          if (c !== C.Colon) fail('bad-json', "expected ':'", base + i, top.path);
          top.expect = 'value';
          i++;
          continue;
        }
        // expect === 'value'
        const path = childPath(top);
        const pk = pathKey(path);
        if (streamPaths.has(pk) || prefixes.has(pk)) {
          const isArray = streamPaths.has(pk);
          if (c !== (isArray ? C.LBracket : C.LBrace))
            fail(
              'unknown-format',
              `expected ${isArray ? 'an array' : 'an object'} at ${formatPath(path)}; capstate reads HAR 1.2 files (log.entries) and scenario Evidence (events)`,
              base + i,
              path,
            );
          stack.push({ isArray, path, expect: 'first', key: null, index: 0, stream: isArray, keys: new Set() });
          opts.onContainer?.(path);
          i++;
          continue;
        }
        // Start capturing this value.
        capturing = true;
        capPath = path;
        capOffset = base + i;
        capKeys = 0;
        capPieces = [];
        capBytes = 0;
        capChunkStart = i;
        capScalar = false;
        capDepth = 0;
        if (c === C.Quote) {
          inStr = true;
          carryBackslash = false; // a string opened here: no backslash run before it is its own
          i++;
          continue;
        }
        if (c === C.LBrace || c === C.LBracket) {
          capDepth = 1;
          i++;
          continue;
        }
        capScalar = true;
        i++;
      }
      if (!inStr) carryBackslash = false;
      if (capturing) {
        const part = buf.subarray(capChunkStart, len);
        capPieces.push(part);
        capBytes += part.length;
        if (capBytes > MAX_VALUE_BYTES) {
          fail(
            'value-too-large',
            `one value is larger than ${MAX_VALUE_BYTES} bytes; capstate reads values up to that size. Split the capture or remove the oversized body.`,
            capOffset,
            capPath,
          );
        }
      }
      base += bytesRead;
      for (const p of out) yield p;
      out.length = 0;
      opts.onBytes?.(base);
    }
    if (capturing && capScalar && !inStr) {
      // A scalar running to the end of the file, e.g. a bare root value: not a capture.
      fail('truncated', 'the file ends inside a value; it is truncated', capOffset, capPath);
    }
    if (!seenRoot) fail('bad-json', 'the file is empty; capstate reads HAR 1.2 files and scenario Evidence JSON', 0, []);
    if (!rootDone) {
      const where = capturing ? capPath : (stack[stack.length - 1]?.path ?? []);
      fail(
        'truncated',
        'the file ends before the JSON document is complete; it is truncated (re-export or re-copy the capture)',
        base,
        where,
      );
    }
  } finally {
    await fh.close();
  }
}
