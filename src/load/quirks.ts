/**
 * Producer quirks the HAR reader tolerates in fields capstate does not need as written
 * (issue 17): each is normalised to HAR 1.2's shape and counted here, so `capstate info`
 * can say what was changed. Fields capstate reads as facts (URL, method, status, times)
 * stay strict.
 */

/** One kind of normalisation, by the producer shape it accepts. */
export const QUIRKS = {
  'header-value-array': 'header values written as arrays (Polly.JS) were joined with ", "',
  'mime-type-array': 'media types written as arrays (Polly.JS) were read as their first element',
  'cookie-object': 'a lone cookie written as an object instead of an array (IE11) was read as a one-cookie array',
  'param-value-object':
    'form parameter values written as arrays or objects (chrome-har) were read as repeated parameters (arrays) or their JSON text',
  'pages-null': '"pages": null (Fiddler) was read as absent (pages are optional in HAR 1.2)',
  'body-chunks':
    'bodies written as a JSON array of base64 or hex chunks of the bytes on the wire (Polly.JS) were joined and decompressed as their Content-Encoding says',
  // How the input was unpacked (inputs.ts): not a quirk of a field, but what was read is not the file as given.
  stdin: 'read from standard input',
  gzip: 'decompressed from gzip',
  zip: "read from Playwright's zipped HAR, each body from the member its content._file or postData._file names",
} as const;

export type QuirkCode = keyof typeof QUIRKS;

/** A normalisation seen in one record (or, with `field` at the root, the capture). */
export interface Quirk {
  code: QuirkCode;
  field: string;
}

export interface QuirkCount {
  quirk: QuirkCode;
  field: string;
  records: number;
  first_record: number | null;
  note: string;
}

/** Counts the normalisations of one capture by (quirk, field), in order of first appearance. */
export class QuirkTally {
  private readonly counts = new Map<string, QuirkCount>();
  private readonly seen = new Set<string>();

  /** Notes the quirks of record `ordinal` (null: the capture's root); a record counts once per (quirk, field). */
  add(ordinal: number | null, quirks: readonly Quirk[] | undefined): void {
    for (const q of quirks ?? []) {
      const key = `${q.code}\0${q.field}`;
      const once = `${key}\0${ordinal}`;
      if (this.seen.has(once)) continue;
      this.seen.add(once);
      const c = this.counts.get(key);
      if (c) c.records += ordinal === null ? 0 : 1;
      else
        this.counts.set(key, {
          quirk: q.code,
          field: q.field,
          records: ordinal === null ? 0 : 1,
          first_record: ordinal,
          note: QUIRKS[q.code],
        });
    }
  }

  get list(): QuirkCount[] {
    return [...this.counts.values()];
  }
}
