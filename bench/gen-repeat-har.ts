/**
 * Issue 49's second bench shape: one small app's session repeated to a target size — many
 * records per tool, writes between the reads — as a user's long single-app recording is (a
 * 200 MB HAR of one json-server page's 19 requests, run again and again). The session is the
 * fidelity benchmark's json-server 0.17 capture, recorded in Debian's Chromium; each repeat is
 * the same requests and answers, later in time. Deterministic: the same target gives the same
 * bytes.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

interface HarEntry {
  startedDateTime: string;
  [k: string]: unknown;
}

/** Writes `file`: the session's entries repeated until the HAR reaches `targetBytes`; returns its size, digest and entries. */
export function generateRepeatedHar(
  root: string,
  file: string,
  targetBytes: number,
  onProgress?: (bytes: number) => void,
): { bytes: number; sha256: string; entries: number; repeats: number } {
  const source = JSON.parse(readFileSync(join(root, 'bench', 'fidelity', 'json-server-0.17', 'capture.har'), 'utf8')) as {
    log: { creator: unknown; pages?: unknown[]; entries: HarEntry[] };
  };
  const entries = source.log.entries;
  const t0 = Date.parse(entries[0].startedDateTime);
  const span = Date.parse(entries[entries.length - 1].startedDateTime) - t0 + 1000;
  const hash = createHash('sha256');
  const fd = openSync(file, 'w');
  let bytes = 0;
  const write = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    writeSync(fd, b);
    hash.update(b);
    bytes += b.length;
  };
  let count = 0;
  let repeats = 0;
  let reported = 0;
  try {
    write(
      `{"log":{"version":"1.2","creator":${JSON.stringify(source.log.creator)},"pages":${JSON.stringify(source.log.pages ?? [])},"entries":[`,
    );
    // The closing brackets are 4 bytes; stop once a whole repeat would pass the target.
    while (bytes < targetBytes - 4) {
      for (const e of entries) {
        const shifted = new Date(Date.parse(e.startedDateTime) + repeats * span).toISOString();
        write(`${count === 0 ? '' : ','}${JSON.stringify({ ...e, startedDateTime: shifted })}`);
        count++;
      }
      repeats++;
      if (onProgress && bytes - reported >= 50e6) onProgress((reported = bytes));
    }
    write(']}}');
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex'), entries: count, repeats };
}
