/**
 * Capture inputs beside plain JSON files (issue 17): a gzip-compressed capture (`.har.gz`,
 * by its magic bytes, whatever its name), Playwright's zipped HAR (`recordHar` with a `.zip`
 * path: `har.har` plus one member per body, named by `content._file` / `postData._file`),
 * and `-` for standard input. Each is turned into a plain capture file in a private
 * temporary directory, streamed (memory stays one chunk, plus one entry and its bodies for
 * a zip), which the loader then reads like any other. The capture's SHA-256 is that of the
 * bytes the user gave (the compressed file, the zip, stdin).
 */
import { closeSync, createReadStream, createWriteStream, mkdtempSync, openSync, readSync, rmSync, statSync, fstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, type Writable } from 'node:stream';
import { createGunzip, createInflateRaw, inflateRawSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';
import { CapstateError } from '../errors.js';
import { splitJson } from './split.js';
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

/**
 * Opens a capture named on the command line. A plain file is read in place; stdin, gzip
 * and zip inputs are unpacked first. Throws CapstateError naming the input for archives
 * capstate cannot read.
 */
export async function openInput(name: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<CaptureInput> {
  let dir: string | null = null;
  const cleanup = () => { if (dir) rmSync(dir, { recursive: true, force: true }); dir = null; };
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
    let path = identity;
    if (isGzip(m)) {
      dir ??= workDir();
      path = join(dir, 'capture.json');
      try {
        await pipeline(createReadStream(identity), createGunzip(), createWriteStream(path));
      } catch (e) {
        throw new CapstateError('bad-archive', `not a readable gzip file (${(e as Error).message}); re-compress the capture or load it uncompressed`, { file: name });
      }
      unpacked.push({ code: 'gzip', field: 'input' });
    } else if (isZip(m)) {
      dir ??= workDir();
      path = join(dir, 'capture.json');
      await unzipPlaywrightHar(identity, name, path);
      unpacked.push({ code: 'zip', field: 'input' });
    }
    const temp = dir;
    const renamed = (e: unknown) => {
      if (!(e instanceof CapstateError) || temp === null || !e.context.file?.startsWith(temp)) return e;
      return new CapstateError(e.code, e.message, { ...e.context, file: name }, e.exitCode);
    };
    return { path, name, identity, unpacked, cleanup, renamed };
  } catch (e) {
    cleanup();
    throw e;
  }
}

// ---------------------------------------------------------------- zip

interface ZipMember { name: string; method: number; compressedSize: number; size: number; localOffset: number; encrypted: boolean }

/** The central directory of a zip file (no zip64, no encryption: Playwright writes neither for a HAR). */
function readZipDirectory(fd: number, file: string): Map<string, ZipMember> {
  const size = fstatSync(fd).size;
  const tailLength = Math.min(size, 22 + 65535);
  const tail = Buffer.alloc(tailLength);
  readSync(fd, tail, 0, tailLength, size - tailLength);
  let eocd = -1;
  for (let i = tailLength - 22; i >= 0; i--) if (tail.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  const bad = (why: string): never => { throw new CapstateError('bad-archive', `not a zip file capstate can read (${why}); unzip it and load the .har inside`, { file }); };
  if (eocd === -1) bad('no end of central directory');
  const count = tail.readUInt16LE(eocd + 10);
  const cdSize = tail.readUInt32LE(eocd + 12);
  const cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) bad('zip64');
  if (cdOffset + cdSize > size) bad('central directory outside the file');
  const cd = Buffer.alloc(cdSize);
  readSync(fd, cd, 0, cdSize, cdOffset);
  const out = new Map<string, ZipMember>();
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== 0x02014b50) bad('damaged central directory');
    const flags = cd.readUInt16LE(p + 8);
    const nameLength = cd.readUInt16LE(p + 28);
    const member: ZipMember = {
      name: cd.subarray(p + 46, p + 46 + nameLength).toString('utf8'),
      method: cd.readUInt16LE(p + 10), compressedSize: cd.readUInt32LE(p + 20), size: cd.readUInt32LE(p + 24),
      localOffset: cd.readUInt32LE(p + 42), encrypted: (flags & 1) === 1,
    };
    out.set(member.name, member);
    p += 46 + nameLength + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
  }
  return out;
}

/** Where a member's data starts (after its local header). */
function dataOffset(fd: number, m: ZipMember, file: string): number {
  const h = Buffer.alloc(30);
  readSync(fd, h, 0, 30, m.localOffset);
  if (h.readUInt32LE(0) !== 0x04034b50) throw new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} is damaged; unzip it and load the .har inside`, { file });
  return m.localOffset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
}

function checkMember(m: ZipMember, file: string): void {
  if (m.encrypted) throw new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} is encrypted; capstate reads unencrypted zips`, { file });
  if (m.method !== 0 && m.method !== 8) throw new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} uses compression method ${m.method}; capstate reads stored and deflated members`, { file });
}

/** Streams one member into `out`. */
async function extractTo(file: string, fd: number, m: ZipMember, out: Writable): Promise<void> {
  checkMember(m, file);
  const start = dataOffset(fd, m, file);
  const raw = m.compressedSize === 0 ? Readable.from([]) : createReadStream(file, { start, end: start + m.compressedSize - 1 });
  try {
    await (m.method === 8 ? pipeline(raw, createInflateRaw(), out) : pipeline(raw, out));
  } catch (e) {
    throw damaged(m, file, e);
  }
}

function damaged(m: ZipMember, file: string, e: unknown): CapstateError {
  return new CapstateError('bad-archive', `the zip member ${JSON.stringify(m.name)} cannot be read (${(e as Error).message}); unzip it and load the .har inside`, { file });
}

/** Reads one (small) member into memory: a body. */
function readMember(fd: number, m: ZipMember, file: string): Buffer {
  checkMember(m, file);
  const data = Buffer.alloc(m.compressedSize);
  const got = readSync(fd, data, 0, m.compressedSize, dataOffset(fd, m, file));
  if (got < m.compressedSize) throw damaged(m, file, new Error('it ends early'));
  try {
    return m.method === 8 ? inflateRawSync(data) : data;
  } catch (e) {
    throw damaged(m, file, e);
  }
}

/** Playwright's rule for embedding a body as text (harTracer's isTextualMimeType). */
const TEXTUAL = /^(text\/.*?|application\/(json|(x-)?javascript|xml.*?|ecmascript|graphql|x-www-form-urlencoded)|image\/svg(\+xml)?|application\/.*?(\+json|\+xml))(;\s*charset=.*)?$/i;

/**
 * Unpacks Playwright's zipped HAR: the one `.har` member, with every `content._file` and
 * `postData._file` body put back in place (text for textual media types that are valid
 * UTF-8, base64 otherwise), written to `out` one entry at a time. Returns how many bodies
 * were put back.
 */
async function unzipPlaywrightHar(file: string, name: string, out: string): Promise<number> {
  const fd = openSync(file, 'r');
  try {
    const members = readZipDirectory(fd, name);
    const hars = [...members.values()].filter((m) => /\.har$/i.test(m.name));
    if (hars.length !== 1) throw new CapstateError('bad-archive', hars.length === 0 ? 'the zip holds no .har file; capstate reads Playwright\'s zipped HAR (recordHar with a .zip path)' : `the zip holds ${hars.length} .har files (${hars.map((m) => m.name).join(', ')}); unzip it and load them one by one`, { file: name });
    const harPath = `${out}.har`;
    await extractTo(file, fd, hars[0], createWriteStream(harPath));
    let inlined = 0;
    const payload = (ref: unknown, where: string): Buffer => {
      const m = typeof ref === 'string' ? members.get(ref) : undefined;
      if (!m) throw new CapstateError('bad-archive', `${where}._file names ${JSON.stringify(ref)}, which the zip does not hold; re-record the capture`, { file: name });
      inlined++;
      return readMember(fd, m, name);
    };
    const sink = createWriteStream(out);
    const write = (s: string) => new Promise<void>((ok, fail) => { sink.write(s, (e) => (e ? fail(e) : ok())); });
    const rest: [string, string][] = [];
    const top: [string, string][] = [];
    let entries = 0;
    await write('{"log":{"entries":[');
    try {
      for await (const p of splitJson(harPath, { stream: [['log', 'entries']] })) {
        const text = p.bytes.toString('utf8');
        if (p.path[0] === 'log' && p.path[1] === 'entries') {
          let e: { request?: { postData?: Record<string, unknown> }; response?: { content?: Record<string, unknown> } };
          try {
            e = JSON.parse(text);
          } catch (err) {
            throw new CapstateError('bad-json', `the zip's ${hars[0].name} is not valid JSON at log.entries[${p.path[2]}] (${(err as Error).message}); re-record the capture`, { file: name, record: Number(p.path[2]) + 1 });
          }
          if (!e || typeof e !== 'object') { await write((entries++ > 0 ? ',' : '') + text); continue; }
          const c = e.response?.content;
          if (c && c._file !== undefined) {
            const bytes = payload(c._file, `log.entries[${p.path[2]}].response.content`);
            if (typeof c.mimeType === 'string' && TEXTUAL.test(c.mimeType) && isUtf8(bytes)) c.text = bytes.toString('utf8');
            else { c.text = bytes.toString('base64'); c.encoding = 'base64'; }
            delete c._file;
          }
          const pd = e.request?.postData;
          if (pd && pd._file !== undefined) {
            const bytes = payload(pd._file, `log.entries[${p.path[2]}].request.postData`);
            pd.text = isUtf8(bytes) ? bytes.toString('utf8') : bytes.toString('latin1');
            delete pd._file;
          }
          await write((entries++ > 0 ? ',' : '') + JSON.stringify(e));
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

/** Bytes of the input that identifies a capture. */
export function inputBytes(input: CaptureInput): number {
  return statSync(input.identity).size;
}
