/**
 * Capture inputs beside plain JSON files (issue 17): a gzip-compressed capture (`.har.gz`,
 * by its magic bytes, whatever its name), Playwright's zipped HAR (`recordHar` with a `.zip`
 * path: `har.har` plus one member per body, named by `content._file` / `postData._file`),
 * and `-` for standard input. Each is turned into a plain capture file in a private
 * temporary directory, streamed (memory stays one chunk, plus one entry and its bodies for
 * a zip), which the loader then reads like any other. What unpacking writes is charged to
 * the capture's decompression budget (inflate-budget.ts), and a zip member never inflates
 * past the size its central directory declares (issue 42). The capture's SHA-256 is that of the
 * bytes the user gave (the compressed file, the zip, stdin).
 */
import { closeSync, createReadStream, createWriteStream, mkdtempSync, openSync, readSync, rmSync, statSync, fstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { createGunzip, createInflateRaw, inflateRawSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';
import { CapstateError } from '../errors.js';
import { InflateBudget, isOutputTooLarge, bytesInWords } from './inflate-budget.js';
import { MAX_VALUE_BYTES, splitJson } from './split.js';
import type { Quirk } from './quirks.js';

export interface CaptureInput {
  /** The plain capture file to read. */
  path: string;
  /** What the user named (`-` for stdin): the name errors and the store use. */
  name: string;
  /** The file whose bytes identify the capture (hashed, counted). */
  identity: string;
  /** How the input was unpacked, for `capstate info`. */
  unpacked: Quirk[];
  /** This capture's decompression budget, with what unpacking it used; the parse charges its bodies to it too. */
  inflate: InflateBudget;
  /** Removes the temporary files. */
  cleanup(): void;
  /** An error about the temporary files, said about the input the user named. */
  renamed(e: unknown): unknown;
}

/** Temporary directories are `capstate-PID-XXXXXX` in $TMPDIR, like serve's temporary stores, so a later run removes abandoned ones. */
function workDir(): string {
  return mkdtempSync(join(tmpdir(), `capstate-${process.pid}-`));
}

function magic(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    const n = readSync(fd, b, 0, 4, 0);
    return b.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

const isGzip = (m: Buffer) => m.length >= 2 && m[0] === 0x1f && m[1] === 0x8b;
const isZip = (m: Buffer) => m.length >= 4 && m.readUInt32LE(0) === 0x04034b50;

export interface OpenOptions {
  /** Standard input, for `-`. */
  stdin?: NodeJS.ReadableStream;
  /** The capture's decompression budget in bytes; else InflateBudget.forInput's default. */
  maxInflatedBytes?: number;
}

/**
 * Opens a capture named on the command line. A plain file is read in place; stdin, gzip
 * and zip inputs are unpacked first, within the capture's decompression budget. Throws
 * CapstateError naming the input (never a temporary path) for archives capstate cannot read.
 */
export async function openInput(name: string, opts: OpenOptions = {}): Promise<CaptureInput> {
  const stdin = opts.stdin ?? process.stdin;
  let dir: string | null = null;
  const cleanup = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  };
  // Issue 42: an error about a temporary file is said about the input the user named.
  const renamer =
    (temp: string | null) =>
    (e: unknown): unknown => {
      if (!(e instanceof CapstateError) || temp === null) return e;
      const file = e.context.file?.startsWith(temp) ? name : e.context.file;
      // A path inside the temporary folder, wherever a message quotes one, becomes the input's name.
      const message = e.message
        .split(temp)
        .map((part, i) => (i === 0 ? part : part.replace(/^[^\s'"`),:;]*/, '')))
        .join(name);
      if (file === e.context.file && message === e.message) return e;
      return new CapstateError(e.code, message, { ...e.context, file }, e.exitCode);
    };
  try {
    let identity = name;
    const unpacked: Quirk[] = [];
    if (name === '-') {
      dir = workDir();
      identity = join(dir, 'stdin');
      await pipeline(stdin, createWriteStream(identity));
      unpacked.push({ code: 'stdin', field: 'input' });
    }
    const m = magic(identity);
    const inflate = InflateBudget.forInput(statSync(identity).size, opts.maxInflatedBytes);
    let path = identity;
    if (isGzip(m)) {
      dir ??= workDir();
      path = join(dir, 'capture.json');
      try {
        await pipeline(
          createReadStream(identity),
          createGunzip(),
          inflate.counter({ subject: 'the gzip-compressed capture', context: { file: name } }),
          createWriteStream(path),
        );
      } catch (e) {
        if (e instanceof CapstateError) throw e;
        throw new CapstateError(
          'bad-archive',
          `not a readable gzip file (${(e as Error).message}); re-compress the capture or load it uncompressed`,
          { file: name },
        );
      }
      unpacked.push({ code: 'gzip', field: 'input' });
    } else if (isZip(m)) {
      dir ??= workDir();
      path = join(dir, 'capture.json');
      await unzipPlaywrightHar(identity, name, path, inflate);
      unpacked.push({ code: 'zip', field: 'input' });
    }
    return { path, name, identity, unpacked, inflate, cleanup, renamed: renamer(dir) };
  } catch (e) {
    const renamed = renamer(dir)(e);
    cleanup();
    throw renamed;
  }
}

// ---------------------------------------------------------------- zip

interface ZipMember {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  encrypted: boolean;
}

/** An open zip: `path` is read, `name` (what the user gave) is what errors say; `inflate` is the capture's budget. */
interface ZipFile {
  fd: number;
  path: string;
  name: string;
  bytes: number;
  inflate: InflateBudget;
}

/**
 * The largest body member read into memory: its base64 must fit in one JSON value
 * (split.ts MAX_VALUE_BYTES), so anything larger could never load.
 */
const MAX_MEMBER_BYTES = Math.floor(MAX_VALUE_BYTES / 4) * 3;

/** The central directory of a zip file (no zip64, no encryption: Playwright writes neither for a HAR). */
function readZipDirectory(z: ZipFile): Map<string, ZipMember> {
  const size = z.bytes;
  const tailLength = Math.min(size, 22 + 65535);
  const tail = Buffer.alloc(tailLength);
  readSync(z.fd, tail, 0, tailLength, size - tailLength);
  let eocd = -1;
  for (let i = tailLength - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  const bad = (why: string): never => {
    throw new CapstateError('bad-archive', `not a zip file capstate can read (${why}); unzip it and load the .har inside`, {
      file: z.name,
    });
  };
  if (eocd === -1) bad('no end of central directory');
  const count = tail.readUInt16LE(eocd + 10);
  const cdSize = tail.readUInt32LE(eocd + 12);
  const cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) bad('zip64');
  if (cdOffset + cdSize > size) bad('central directory outside the file');
  const cd = Buffer.alloc(cdSize);
  readSync(z.fd, cd, 0, cdSize, cdOffset);
  const out = new Map<string, ZipMember>();
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== 0x02014b50) bad('damaged central directory');
    const flags = cd.readUInt16LE(p + 8);
    const nameLength = cd.readUInt16LE(p + 28);
    const member: ZipMember = {
      name: cd.subarray(p + 46, p + 46 + nameLength).toString('utf8'),
      method: cd.readUInt16LE(p + 10),
      compressedSize: cd.readUInt32LE(p + 20),
      size: cd.readUInt32LE(p + 24),
      localOffset: cd.readUInt32LE(p + 42),
      encrypted: (flags & 1) === 1,
    };
    out.set(member.name, member);
    p += 46 + nameLength + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
  }
  return out;
}

/** A member whose sizes do not hold: refused before (or while) inflating, never inflated further than it says. */
function lying(z: ZipFile, m: ZipMember, what: string): CapstateError {
  return new CapstateError(
    'bad-archive',
    `the zip member ${JSON.stringify(m.name)} ${what}; the zip is damaged or crafted. Re-create it, or unzip it with a tool you trust and load the .har inside`,
    { file: z.name },
  );
}

/**
 * Where a member's data starts (after its local header), once its sizes are consistent:
 * the local header agrees with the central directory (unless it defers them to a data
 * descriptor, as Playwright's zips do), the data lies inside the file, a stored member is
 * as long as it says.
 */
function memberStart(z: ZipFile, m: ZipMember): number {
  checkMember(m, z.name);
  const h = Buffer.alloc(30);
  const got = m.localOffset + 30 <= z.bytes ? readSync(z.fd, h, 0, 30, m.localOffset) : 0;
  if (got < 30 || h.readUInt32LE(0) !== 0x04034b50)
    throw new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} is damaged; unzip it and load the .har inside`, {
      file: z.name,
    });
  const deferred = (h.readUInt16LE(6) & 8) !== 0;
  const localCompressed = h.readUInt32LE(18);
  const localSize = h.readUInt32LE(22);
  if ((!deferred || localCompressed !== 0 || localSize !== 0) && (localCompressed !== m.compressedSize || localSize !== m.size)) {
    throw lying(
      z,
      m,
      `has sizes that disagree: its local header says ${localCompressed} compressed bytes holding ${localSize}, the central directory ${m.compressedSize} holding ${m.size}`,
    );
  }
  const start = m.localOffset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
  if (start + m.compressedSize > z.bytes)
    throw lying(z, m, `declares ${m.compressedSize} compressed bytes, more than the file holds after it`);
  if (m.method === 0 && m.size !== m.compressedSize)
    throw lying(z, m, `is stored uncompressed, yet declares ${m.size} bytes in ${m.compressedSize}`);
  return start;
}

function checkMember(m: ZipMember, file: string): void {
  if (m.encrypted)
    throw new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} is encrypted; capstate reads unencrypted zips`, {
      file,
    });
  if (m.method !== 0 && m.method !== 8)
    throw new CapstateError(
      'bad-archive',
      `the zip member ${JSON.stringify(m.name)} uses compression method ${m.method}; capstate reads stored and deflated members`,
      { file },
    );
}

/**
 * Streams one member into `out`, charged to the capture's budget. It inflates to exactly
 * the size the central directory declares, or fails as soon as it passes it: the declared
 * size is checked against the budget before anything is written.
 */
async function extractTo(z: ZipFile, m: ZipMember, out: Writable): Promise<void> {
  const start = memberStart(z, m);
  const site = { subject: `the zip member ${JSON.stringify(m.name)}`, context: { file: z.name } };
  z.inflate.reserve(m.size, site);
  const raw = m.compressedSize === 0 ? Readable.from([]) : createReadStream(z.path, { start, end: start + m.compressedSize - 1 });
  let got = 0;
  const exact = new Transform({
    transform(chunk: Buffer, _enc, done) {
      got += chunk.length;
      if (got > m.size) done(lying(z, m, `inflates to more than the ${m.size} bytes it declares`));
      else done(null, chunk);
    },
    flush(done) {
      done(got === m.size ? null : lying(z, m, `inflates to ${got} bytes, not the ${m.size} it declares`));
    },
  });
  try {
    await (m.method === 8
      ? pipeline(raw, createInflateRaw(), exact, z.inflate.counter(site), out)
      : pipeline(raw, exact, z.inflate.counter(site), out));
  } catch (e) {
    if (e instanceof CapstateError) throw e;
    throw damaged(m, z.name, e);
  }
}

function damaged(m: ZipMember, file: string, e: unknown): CapstateError {
  return new CapstateError(
    'bad-archive',
    `the zip member ${JSON.stringify(m.name)} cannot be read (${(e as Error).message}); unzip it and load the .har inside`,
    { file },
  );
}

/**
 * Reads one body member into memory: at most its declared size (zlib's maxOutputLength),
 * which must fit in the budget left and in one value. `where` names the field that names it.
 */
function readMember(z: ZipFile, m: ZipMember, where: string): Buffer {
  const start = memberStart(z, m);
  const subject = `the zip member ${JSON.stringify(m.name)} (named by ${where}._file)`;
  z.inflate.reserve(m.size, { subject, context: { file: z.name } });
  if (m.size > MAX_MEMBER_BYTES) {
    throw new CapstateError(
      'value-too-large',
      `${subject} holds ${bytesInWords(m.size)}; capstate reads bodies up to ${bytesInWords(MAX_MEMBER_BYTES)} (as base64 they must fit in one JSON value). Remove the body from the capture`,
      { file: z.name },
    );
  }
  const data = Buffer.alloc(m.compressedSize);
  const got = readSync(z.fd, data, 0, m.compressedSize, start);
  if (got < m.compressedSize) throw damaged(m, z.name, new Error('it ends early'));
  if (m.method !== 8) return data;
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, m.size) });
  } catch (e) {
    throw isOutputTooLarge(e) ? lying(z, m, `inflates to more than the ${m.size} bytes it declares`) : damaged(m, z.name, e);
  }
  if (bytes.length !== m.size) throw lying(z, m, `inflates to ${bytes.length} bytes, not the ${m.size} it declares`);
  return bytes;
}

/** Playwright's rule for embedding a body as text (harTracer's isTextualMimeType). */
const TEXTUAL =
  /^(text\/.*?|application\/(json|(x-)?javascript|xml.*?|ecmascript|graphql|x-www-form-urlencoded)|image\/svg(\+xml)?|application\/.*?(\+json|\+xml))(;\s*charset=.*)?$/i;

/**
 * Unpacks Playwright's zipped HAR: the one `.har` member, with every `content._file` and
 * `postData._file` body put back in place (text for textual media types that are valid
 * UTF-8, base64 otherwise), written to `out` one entry at a time. Every byte written to
 * the temp folder (the `.har` member, then the capture rebuilt from it) is charged to the
 * capture's budget. Returns how many bodies were put back.
 */
async function unzipPlaywrightHar(file: string, name: string, out: string, inflate: InflateBudget): Promise<number> {
  const fd = openSync(file, 'r');
  try {
    const z: ZipFile = { fd, path: file, name, bytes: fstatSync(fd).size, inflate };
    const members = readZipDirectory(z);
    const hars = [...members.values()].filter((m) => /\.har$/i.test(m.name));
    if (hars.length !== 1)
      throw new CapstateError(
        'bad-archive',
        hars.length === 0
          ? "the zip holds no .har file; capstate reads Playwright's zipped HAR (recordHar with a .zip path)"
          : `the zip holds ${hars.length} .har files (${hars.map((m) => m.name).join(', ')}); unzip it and load them one by one`,
        { file: name },
      );
    const harPath = `${out}.har`;
    await extractTo(z, hars[0], createWriteStream(harPath));
    let inlined = 0;
    const payload = (ref: unknown, where: string): Buffer => {
      const m = typeof ref === 'string' ? members.get(ref) : undefined;
      if (!m)
        throw new CapstateError(
          'bad-archive',
          `${where}._file names ${JSON.stringify(ref)}, which the zip does not hold; re-record the capture`,
          { file: name },
        );
      inlined++;
      return readMember(z, m, where);
    };
    const sink = createWriteStream(out);
    const rebuilt = { subject: `the capture rebuilt from the zip's ${hars[0].name} and its body members`, context: { file: name } };
    const write = (s: string, site = rebuilt) => {
      inflate.charge(Buffer.byteLength(s), site);
      return new Promise<void>((ok, fail) => {
        sink.write(s, (e) => (e ? fail(e) : ok()));
      });
    };
    const rest: [string, string][] = [];
    const top: [string, string][] = [];
    let entries = 0;
    await write('{"log":{"entries":[');
    try {
      for await (const p of splitJson(harPath, { stream: [['log', 'entries']] })) {
        const text = p.bytes.toString('utf8');
        if (p.path[0] === 'log' && p.path[1] === 'entries') {
          const at = { file: name, record: Number(p.path[2]) + 1, path: `log.entries[${p.path[2]}]` };
          let e: { request?: { postData?: Record<string, unknown> }; response?: { content?: Record<string, unknown> } };
          try {
            e = JSON.parse(text);
          } catch (err) {
            throw new CapstateError(
              'bad-json',
              `the zip's ${hars[0].name} is not valid JSON at log.entries[${p.path[2]}] (${(err as Error).message}); re-record the capture`,
              { file: name, record: Number(p.path[2]) + 1 },
            );
          }
          if (!e || typeof e !== 'object') {
            await write((entries++ > 0 ? ',' : '') + text);
            continue;
          }
          const c = e.response?.content;
          if (c && c._file !== undefined) {
            const bytes = payload(c._file, `log.entries[${p.path[2]}].response.content`);
            const asText = typeof c.mimeType === 'string' && TEXTUAL.test(c.mimeType) && isUtf8(bytes);
            // Refused before its text is built when even that would not fit in what is left.
            inflate.reserve(asText ? bytes.length : 4 * Math.ceil(bytes.length / 3), {
              subject: 'the entry with its bodies from the zip put back',
              context: at,
            });
            if (asText) c.text = bytes.toString('utf8');
            else {
              c.text = bytes.toString('base64');
              c.encoding = 'base64';
            }
            delete c._file;
          }
          const pd = e.request?.postData;
          if (pd && pd._file !== undefined) {
            const bytes = payload(pd._file, `log.entries[${p.path[2]}].request.postData`);
            pd.text = isUtf8(bytes) ? bytes.toString('utf8') : bytes.toString('latin1');
            delete pd._file;
          }
          await write((entries++ > 0 ? ',' : '') + entryJson(e, at), {
            subject: 'the entry with its bodies from the zip put back',
            context: at,
          });
        } else if (p.path[0] === 'log') rest.push([String(p.path[1]), text]);
        else top.push([String(p.path[0]), text]);
      }
      await write(']');
      for (const [k, v] of rest) await write(`,${JSON.stringify(k)}:${v}`);
      await write('}');
      for (const [k, v] of top) await write(`,${JSON.stringify(k)}:${v}`);
      await write('}');
    } finally {
      await new Promise<void>((ok) => sink.end(ok));
      rmSync(harPath, { force: true });
    }
    return inlined;
  } finally {
    closeSync(fd);
  }
}

/** An entry with its bodies put back, as JSON that the parse can still read as one value. */
function entryJson(e: unknown, at: { file: string; record: number; path: string }): string {
  let json: string | null = null;
  try {
    json = JSON.stringify(e);
  } catch {
    // V8's string limit: the entry cannot be written as one value.
  }
  if (json === null || Buffer.byteLength(json) > MAX_VALUE_BYTES) {
    throw new CapstateError(
      'value-too-large',
      `this entry with its bodies from the zip put back is larger than ${bytesInWords(MAX_VALUE_BYTES)}, the largest value capstate reads. Remove the oversized body from the capture`,
      at,
    );
  }
  return json;
}

/** Bytes of the input that identifies a capture. */
export function inputBytes(input: CaptureInput): number {
  return statSync(input.identity).size;
}
