/**
 * Deterministic generator of realistic REST-session HAR 1.2 captures for the ingest bench.
 *
 * Same (targetBytes, seed) → byte-identical file: every choice comes from one seeded
 * mulberry32 stream, timestamps advance from a fixed epoch, and serialisation order is fixed.
 * No Math.random, no clock reads.
 *
 * The mix follows ../shared/perf-baselines.md (the unseen `gen-har.mjs` there): ~55% GET list
 * reads, ~25% item reads (some 404s), writes with JSON postData, ~3% base64 images, query
 * variants, a few integers beyond 2^53, Chrome-style headers and timings. Output is streamed
 * in ~1 MiB writes so a 500 MB file never exists as one string.
 *
 * CLI: node dist/bench/gen-har.js <MB> <out.har> [seed]
 */
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** Bump when the output for given arguments changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 1;
export const DEFAULT_SEED = 0x5eed_cafe;

// ---------------------------------------------------------------------------------------------
// PRNG and small helpers

/** mulberry32: tiny, fast, good enough for synthetic data, and identical on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** Integer in [lo, hi], inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  u32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
  hex(chars: number): string {
    let s = '';
    while (s.length < chars) s += this.u32().toString(16).padStart(8, '0');
    return s.slice(0, chars);
  }
  uuid(): string {
    const h = this.hex(32);
    // Version 4 / variant 10xx nibbles, so the ids look like what servers emit.
    const variant = '89ab'[parseInt(h[16], 16) & 3];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    let i = 0;
    for (; i + 4 <= n; i += 4) b.writeUInt32LE(this.u32(), i);
    for (; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FIRST = [
  'Ada',
  'Grace',
  'Linus',
  'Margaret',
  'Alan',
  'Barbara',
  'Ken',
  'Frances',
  'José',
  'Zoë',
  'Søren',
  'Łukasz',
  'Mei',
  'Hiroshi',
  'Aarav',
  'Fatima',
  'Olu',
  'Ingrid',
  'Chidi',
  'Priya',
] as const;
const LAST = [
  'Lovelace',
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Turing',
  'Liskov',
  'Thompson',
  'Allen',
  'Müller',
  'García',
  'Kowalski',
  '王',
  'Tanaka',
  'Okafor',
  'Nakamura',
  'Haddad',
  'Silva',
  'Novak',
] as const;
const WORDS = [
  'alpha',
  'beta',
  'delta',
  'quarterly',
  'report',
  'billing',
  'ingest',
  'pipeline',
  'cache',
  'review',
  'draft',
  'final',
  'customer',
  'migration',
  'latency',
  'dashboard',
  'invoice',
  'north',
  'south',
  'backlog',
  'sprint',
  'release',
  'hotfix',
  'archive',
  'sync',
  'token',
  'region',
  'fleet',
] as const;
const TAGS = [
  'urgent',
  'internal',
  'beta',
  'legacy',
  'eu',
  'us',
  'apac',
  'vip',
  'trial',
  'blocked',
  'needs-review',
  'automated',
  'imported',
  'pinned',
  'archived',
] as const;
const STATUSES = ['active', 'pending', 'suspended', 'archived', 'draft', 'open', 'closed'] as const;
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF'] as const;
const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'JP', 'BR', 'IN', 'NG', 'PL', 'SE'] as const;

const ORIGIN = 'https://app.example.com';
const API = 'https://api.example.com/v2';
const CDN = 'https://cdn.example.com';

/** Value shapes a resource field can have. */
type FieldKind =
  | 'uuid'
  | 'name'
  | 'email'
  | 'iso'
  | 'date'
  | 'status'
  | 'int'
  | 'float'
  | 'money'
  | 'bool'
  | 'tags'
  | 'person'
  | 'meta'
  | 'text'
  | 'url'
  | 'nullable'
  | 'address'
  | 'counts'
  | 'color'
  | 'version';

const FIELD_POOL: readonly (readonly [string, FieldKind])[] = [
  ['name', 'name'],
  ['title', 'text'],
  ['slug', 'version'],
  ['email', 'email'],
  ['status', 'status'],
  ['priority', 'int'],
  ['score', 'float'],
  ['amount', 'money'],
  ['is_public', 'bool'],
  ['verified', 'bool'],
  ['tags', 'tags'],
  ['labels', 'tags'],
  ['owner', 'person'],
  ['assignee', 'person'],
  ['created_by', 'person'],
  ['metadata', 'meta'],
  ['settings', 'meta'],
  ['description', 'text'],
  ['notes', 'text'],
  ['avatar_url', 'url'],
  ['homepage', 'url'],
  ['archived_at', 'nullable'],
  ['deleted_at', 'nullable'],
  ['billing_address', 'address'],
  ['stats', 'counts'],
  ['color', 'color'],
  ['revision', 'int'],
  ['due_date', 'date'],
  ['last_seen_at', 'iso'],
  ['published_at', 'iso'],
  ['parent_id', 'uuid'],
  ['workspace_id', 'uuid'],
  ['position', 'int'],
  ['weight', 'float'],
  ['version', 'version'],
  ['locale', 'version'],
  ['quota', 'int'],
  ['balance', 'money'],
  ['flags', 'tags'],
];

interface Resource {
  name: string;
  singular: string;
  fields: readonly (readonly [string, FieldKind])[];
  /** Fields that can be expanded with ?expand= (the person-shaped ones). */
  expandable: readonly string[];
  /** Only 'ledger-entries' carries 64-bit sequence numbers. */
  bigSeq: boolean;
}

const RESOURCE_NAMES = [
  ['projects', 'project'],
  ['users', 'user'],
  ['tickets', 'ticket'],
  ['invoices', 'invoice'],
  ['dashboards', 'dashboard'],
  ['orders', 'order'],
  ['ledger-entries', 'ledger_entry'],
  ['teams', 'team'],
] as const;

// ---------------------------------------------------------------------------------------------
// HAR shapes (only what we emit)

interface NameValue {
  name: string;
  value: string;
}
interface HarCookie {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  httpOnly?: boolean;
  secure?: boolean;
}
interface HarContent {
  size: number;
  mimeType: string;
  text?: string;
  encoding?: 'base64';
  compression?: number;
}
interface HarEntry {
  _initiator: { type: string };
  _priority: string;
  _resourceType: string;
  cache: Record<string, never>;
  connection: string;
  pageref: string;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: NameValue[];
    queryString: NameValue[];
    cookies: HarCookie[];
    headersSize: number;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: NameValue[];
    cookies: HarCookie[];
    content: HarContent;
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    _transferSize: number;
    _error: null;
  };
  serverIPAddress: string;
  startedDateTime: string;
  time: number;
  timings: {
    blocked: number;
    dns: number;
    ssl: number;
    connect: number;
    send: number;
    wait: number;
    receive: number;
    _blocked_queueing: number;
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** What one file contains; written beside it so the bench can report and sanity-check the mix. */
export interface GenStats {
  entries: number;
  listReads: number;
  itemReads: number;
  notFound: number;
  images: number;
  post: number;
  put: number;
  patch: number;
  delete: number;
  queryPage: number;
  queryExpand: number;
  queryFields: number;
  bigIntegers: number;
  bodyChars: number;
}

// Big integers cannot go through JSON.stringify as numbers; they travel as this marker string and
// are unquoted afterwards (only in bodies that contain one).
const BIG_MARK = '\u0000big:';
const BIG_RE = /"\\u0000big:(\d+)"/g;

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  404: 'Not Found',
  422: 'Unprocessable Entity',
};

// ---------------------------------------------------------------------------------------------
// The session model

class Session {
  private readonly r: Rng;
  private readonly resources: Resource[];
  /** Ids handed out by earlier responses, so item reads and writes address known objects. */
  private readonly known = new Map<string, string[]>();
  private clockMs = Date.UTC(2024, 2, 12, 9, 14, 7, 123); // fixed epoch, not the wall clock
  private token = '';
  private cookie = '';
  private cookies: HarCookie[] = [];
  readonly stats: GenStats = {
    entries: 0,
    listReads: 0,
    itemReads: 0,
    notFound: 0,
    images: 0,
    post: 0,
    put: 0,
    patch: 0,
    delete: 0,
    queryPage: 0,
    queryExpand: 0,
    queryFields: 0,
    bigIntegers: 0,
    bodyChars: 0,
  };

  constructor(seed: number) {
    this.r = new Rng(seed);
    // Field counts spread evenly over 10–30 (a uniform draw per resource can leave all eight near
    // one end, which would make the corpus' bytes per entry depend on the seed).
    const counts = RESOURCE_NAMES.map((_, i) => 10 + Math.round((i * 20) / (RESOURCE_NAMES.length - 1)));
    for (let i = counts.length - 1; i > 0; i--) {
      const j = this.r.int(0, i);
      [counts[i], counts[j]] = [counts[j], counts[i]];
    }
    this.resources = RESOURCE_NAMES.map(([name, singular], i) => this.makeResource(name, singular, counts[i]));
    this.rotateCredentials();
  }

  private makeResource(name: string, singular: string, fieldCount: number): Resource {
    // Each resource gets a fixed field set, so list items of one resource share a shape the way
    // real APIs do.
    const r = this.r;
    const pool = FIELD_POOL.slice();
    const fields: [string, FieldKind][] = [
      ['id', 'uuid'],
      ['created_at', 'iso'],
      ['updated_at', 'iso'],
    ];
    const n = fieldCount - fields.length;
    for (let i = 0; i < n && pool.length; i++) {
      const [f] = pool.splice(r.int(0, pool.length - 1), 1);
      fields.push([f[0], f[1]]);
    }
    const bigSeq = name === 'ledger-entries';
    return { name, singular, fields, expandable: fields.filter(([, k]) => k === 'person').map(([f]) => f), bigSeq };
  }

  private rotateCredentials(): void {
    const r = this.r;
    const b64url = (s: string) => Buffer.from(s).toString('base64url');
    const header = b64url('{"alg":"RS256","typ":"JWT","kid":"' + r.hex(16) + '"}');
    const iat = Math.floor(this.clockMs / 1000);
    const payload = b64url(
      `{"sub":"${r.uuid()}","iss":"https://auth.example.com/","aud":"api","iat":${iat},"exp":${iat + 3600},"scope":"read write"}`,
    );
    this.token = `${header}.${payload}.${r.bytes(64).toString('base64url')}`;
    this.cookies = [
      { name: 'sessionid', value: r.hex(32) },
      { name: 'csrftoken', value: r.bytes(24).toString('base64url') },
      { name: '_ga', value: `GA1.1.${r.u32()}.${Math.floor(this.clockMs / 1000)}` },
      { name: 'theme', value: r.pick(['dark', 'light']) },
    ];
    this.cookie = this.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  // --- values -------------------------------------------------------------------------------

  private iso(): string {
    // Any instant in the two years before the session.
    return new Date(this.clockMs - this.r.int(0, 2 * 365 * 86400) * 1000 - this.r.int(0, 999)).toISOString();
  }
  private personName(): string {
    return `${this.r.pick(FIRST)} ${this.r.pick(LAST)}`;
  }
  private sentence(min: number, max: number): string {
    const n = this.r.int(min, max);
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(this.r.pick(WORDS));
    const s = w.join(' ');
    return s[0].toUpperCase() + s.slice(1) + (this.r.chance(0.05) ? ' ✅' : '.');
  }
  private person(expanded: boolean): Json {
    const r = this.r;
    const name = this.personName();
    // A reference is {id, name}; ?expand= turns it into the full person.
    const p: { [k: string]: Json } = { id: r.uuid(), name };
    if (expanded) {
      p.email = this.email(name);
      p.avatar_url = `${CDN}/avatars/${r.hex(12)}.png`;
      p.role = r.pick(['admin', 'member', 'viewer', 'owner']);
      p.created_at = this.iso();
      p.team = { id: r.uuid(), name: `${r.pick(WORDS)}-${r.pick(WORDS)}` };
    }
    return p;
  }
  private email(name: string): string {
    const local =
      name
        .toLowerCase()
        .normalize('NFKD')
        .replace(/[^a-z]+/g, '.')
        .replace(/^\.|\.$/g, '') || 'user';
    return `${local}${this.r.int(1, 99)}@${this.r.pick(['example.com', 'example.org', 'corp.example.net'])}`;
  }

  private value(kind: FieldKind, expand: boolean): Json {
    const r = this.r;
    switch (kind) {
      case 'uuid':
        return r.uuid();
      case 'name':
        return this.personName();
      case 'email':
        return this.email(this.personName());
      case 'iso':
        return this.iso();
      case 'date':
        return this.iso().slice(0, 10);
      case 'status':
        return r.pick(STATUSES);
      case 'int':
        return r.int(0, r.chance(0.2) ? 1_000_000 : 500);
      case 'float':
        return Math.round(r.next() * 1e6) / 1e4;
      case 'money':
        return { amount: (r.int(0, 9_999_999) / 100).toFixed(2), currency: r.pick(CURRENCIES) };
      case 'bool':
        return r.chance(0.5);
      case 'tags': {
        const n = r.int(0, 5);
        const t: Json[] = [];
        for (let i = 0; i < n; i++) t.push(r.pick(TAGS));
        return t;
      }
      case 'person':
        return this.person(expand);
      case 'meta':
        return {
          source: r.pick(['web', 'api', 'import', 'mobile']),
          schema_version: r.int(1, 7),
          labels: { env: r.pick(['prod', 'staging', 'dev']), team: r.pick(WORDS) },
        };
      case 'text':
        return this.sentence(2, 8);
      case 'url':
        return `${r.pick([ORIGIN, CDN])}/${r.pick(WORDS)}/${r.hex(10)}`;
      case 'nullable':
        return r.chance(0.8) ? null : this.iso();
      case 'address':
        return {
          line1: `${r.int(1, 999)} ${r.pick(WORDS)} street`,
          city: r.pick(['Berlin', 'Lyon', 'Austin', 'Leeds', 'Ōsaka', 'São Paulo', 'Kraków']),
          postal_code: String(r.int(10000, 99999)),
          country: r.pick(COUNTRIES),
        };
      case 'counts':
        return { views: r.int(0, 100000), comments: r.int(0, 500), stars: r.int(0, 5000), ratio: Math.round(r.next() * 1000) / 1000 };
      case 'color':
        return '#' + r.hex(6);
      case 'version':
        return `${r.pick(WORDS)}-${r.int(1, 20)}.${r.int(0, 40)}`;
    }
  }

  private object(res: Resource, opts: { id?: string; fields?: readonly string[]; expand?: readonly string[] } = {}): { [k: string]: Json } {
    const o: { [k: string]: Json } = {};
    for (const [f, kind] of res.fields) {
      if (opts.fields && !opts.fields.includes(f)) continue;
      o[f] = f === 'id' && opts.id ? opts.id : this.value(kind, opts.expand?.includes(f) ?? false);
    }
    if (res.bigSeq && !opts.fields && this.r.chance(0.004)) {
      // Snowflake-style 64-bit id > 2^53: hi ≥ 2^21 puts the value in [2^53, 2^63).
      const hi = BigInt(this.r.int(0x200000, 0x7fffffff));
      o.sequence = BIG_MARK + ((hi << 32n) | BigInt(this.r.u32())).toString();
      this.stats.bigIntegers++;
    }
    return o;
  }

  private remember(res: Resource, id: string): void {
    let ids = this.known.get(res.name);
    if (!ids) this.known.set(res.name, (ids = []));
    if (ids.length < 500) ids.push(id);
    else ids[this.r.int(0, ids.length - 1)] = id;
  }
  private knownId(res: Resource): string {
    const ids = this.known.get(res.name);
    return ids && ids.length && this.r.chance(0.9) ? this.r.pick(ids) : this.r.uuid();
  }

  private json(v: Json): string {
    const s = JSON.stringify(v);
    // JSON.stringify renders the marker's NUL as \u0000, which BIG_RE matches.
    return s.includes('\\u0000big:') ? s.replace(BIG_RE, '$1') : s;
  }

  // --- headers ------------------------------------------------------------------------------

  private requestHeaders(h2: boolean, method: string, url: URL, accept: string, body: string | null, dest: string): NameValue[] {
    // Chrome over HTTP/2 lower-cases names and records the pseudo-headers; over HTTP/1.1 it keeps
    // the server's spelling. Both appear in real captures, so both appear here.
    const n = (s: string) => (h2 ? s.toLowerCase() : s);
    const hs: NameValue[] = [];
    if (h2) {
      hs.push(
        { name: ':authority', value: url.host },
        { name: ':method', value: method },
        { name: ':path', value: url.pathname + url.search },
        { name: ':scheme', value: 'https' },
      );
    } else {
      hs.push({ name: 'Host', value: url.host }, { name: 'Connection', value: 'keep-alive' });
    }
    hs.push({ name: n('Accept'), value: accept });
    hs.push({ name: n('Accept-Encoding'), value: 'gzip, deflate, br, zstd' });
    hs.push({ name: n('Accept-Language'), value: 'en-GB,en;q=0.9,de;q=0.8' });
    if (dest !== 'image') hs.push({ name: n('Authorization'), value: `Bearer ${this.token}` });
    if (body !== null) {
      hs.push({ name: n('Content-Length'), value: String(Buffer.byteLength(body)) });
      hs.push({ name: n('Content-Type'), value: 'application/json' });
    }
    hs.push({ name: n('Cookie'), value: this.cookie });
    hs.push({ name: n('Origin'), value: ORIGIN });
    hs.push({ name: n('Referer'), value: ORIGIN + '/' });
    hs.push({ name: n('Sec-Ch-Ua'), value: '"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"' });
    hs.push({ name: n('Sec-Ch-Ua-Mobile'), value: '?0' });
    hs.push({ name: n('Sec-Ch-Ua-Platform'), value: '"Linux"' });
    hs.push({ name: n('Sec-Fetch-Dest'), value: dest === 'image' ? 'image' : 'empty' });
    hs.push({ name: n('Sec-Fetch-Mode'), value: dest === 'image' ? 'no-cors' : 'cors' });
    hs.push({ name: n('Sec-Fetch-Site'), value: 'same-site' });
    hs.push({
      name: n('User-Agent'),
      value: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    });
    if (dest !== 'image') hs.push({ name: n('X-Request-Id'), value: this.r.uuid() });
    return hs;
  }

  private responseHeaders(h2: boolean, mime: string | null, size: number, extra: NameValue[]): NameValue[] {
    const r = this.r;
    const n = (s: string) => (h2 ? s.toLowerCase() : s);
    const hs: NameValue[] = [
      { name: n('Access-Control-Allow-Credentials'), value: 'true' },
      { name: n('Access-Control-Allow-Origin'), value: ORIGIN },
      { name: n('Cache-Control'), value: mime?.startsWith('image/') ? 'public, max-age=31536000, immutable' : 'no-store' },
    ];
    if (mime) {
      if (!mime.startsWith('image/')) hs.push({ name: n('Content-Encoding'), value: 'br' });
      else hs.push({ name: n('Content-Length'), value: String(size) });
      hs.push({ name: n('Content-Type'), value: mime.startsWith('image/') ? mime : `${mime}; charset=utf-8` });
    }
    hs.push({ name: n('Date'), value: new Date(this.clockMs).toUTCString() });
    if (mime) hs.push({ name: n('ETag'), value: `W/"${r.hex(16)}"` });
    hs.push({ name: n('Server'), value: 'envoy' });
    hs.push({ name: n('Strict-Transport-Security'), value: 'max-age=63072000; includeSubDomains' });
    hs.push({ name: n('Vary'), value: 'Origin, Accept-Encoding' });
    hs.push({ name: n('X-Envoy-Upstream-Service-Time'), value: String(r.int(2, 180)) });
    hs.push(...extra);
    return hs;
  }

  // --- entries ------------------------------------------------------------------------------

  /** Builds the next entry; the kind mix is drawn here. */
  next(): HarEntry {
    const r = this.r;
    this.clockMs += r.int(1, 400); // strictly increasing startedDateTime, ms resolution
    if (this.stats.entries > 0 && this.stats.entries % 700 === 0) this.rotateCredentials(); // token refresh
    const roll = r.next();
    let e: HarEntry;
    if (roll < 0.03) e = this.image();
    else if (roll < 0.58) e = this.listRead();
    else if (roll < 0.83) e = this.itemRead();
    else e = this.write();
    this.stats.entries++;
    this.stats.bodyChars += e.response.content.text?.length ?? 0;
    return e;
  }

  private listRead(): HarEntry {
    const r = this.r;
    const res = r.pick(this.resources);
    const q: NameValue[] = [];
    const page = r.chance(0.28) ? r.int(2, 40) : 1;
    const perPage = r.int(20, 50);
    if (page > 1) {
      q.push({ name: 'page', value: String(page) }, { name: 'per_page', value: String(perPage) });
      this.stats.queryPage++;
    }
    let expand: string[] | undefined;
    if (res.expandable.length && r.chance(0.09)) {
      expand = res.expandable.filter(() => r.chance(0.7));
      if (!expand.length) expand = [res.expandable[0]];
      q.push({ name: 'expand', value: expand.join(',') });
      this.stats.queryExpand++;
    }
    const fields = this.maybeFields(res, q);
    const items: Json[] = [];
    for (let i = 0; i < perPage; i++) {
      const o = this.object(res, { fields, expand });
      if (typeof o.id === 'string') this.remember(res, o.id);
      items.push(o);
    }
    const total = page * perPage + r.int(0, 2000);
    const url = this.url(`/${res.name}`, q);
    const body = this.json({
      data: items,
      meta: { page, per_page: perPage, total, request_id: r.uuid() },
      links: { self: url.href, next: `${API}/${res.name}?page=${page + 1}&per_page=${perPage}` },
    });
    this.stats.listReads++;
    return this.entry('GET', url, q, null, 200, 'application/json', body, []);
  }

  private itemRead(): HarEntry {
    const r = this.r;
    const res = r.pick(this.resources);
    const q: NameValue[] = [];
    let expand: string[] | undefined;
    if (res.expandable.length && r.chance(0.07)) {
      expand = res.expandable.slice(0, r.int(1, res.expandable.length));
      q.push({ name: 'expand', value: expand.join(',') });
      this.stats.queryExpand++;
    }
    const fields = this.maybeFields(res, q);
    const id = this.knownId(res);
    const url = this.url(`/${res.name}/${id}`, q);
    this.stats.itemReads++;
    if (r.chance(0.06)) {
      this.stats.notFound++;
      const body = this.json({ error: { code: 'not_found', message: `${res.singular} ${id} not found`, request_id: r.uuid() } });
      return this.entry('GET', url, q, null, 404, 'application/json', body, []);
    }
    const body = this.json({ data: this.object(res, { id, fields, expand }) });
    return this.entry('GET', url, q, null, 200, 'application/json', body, []);
  }

  private maybeFields(res: Resource, q: NameValue[]): string[] | undefined {
    if (!this.r.chance(0.065)) return undefined;
    const fields = ['id', ...res.fields.filter(([f]) => f !== 'id' && this.r.chance(0.35)).map(([f]) => f)];
    q.push({ name: 'fields', value: fields.join(',') });
    this.stats.queryFields++;
    return fields;
  }

  private write(): HarEntry {
    const r = this.r;
    const res = r.pick(this.resources);
    const w = r.next();
    const writable = res.fields.filter(([f]) => f !== 'id' && f !== 'created_at' && f !== 'updated_at').map(([f]) => f);
    const invalid = r.chance(0.03);
    if (w < 0.34) {
      this.stats.post++;
      const input = this.object(res, { fields: writable });
      const req = this.json(input);
      const url = this.url(`/${res.name}`, []);
      if (invalid) return this.validationError('POST', url, req, writable);
      const created = { ...this.object(res), ...input };
      const id = created.id as string;
      this.remember(res, id);
      return this.entry('POST', url, [], req, 201, 'application/json', this.json({ data: created }), [
        { name: 'Location', value: `${API}/${res.name}/${id}` },
      ]);
    }
    const id = this.knownId(res);
    const url = this.url(`/${res.name}/${id}`, []);
    if (w < 0.53) {
      this.stats.put++;
      const input = this.object(res, { fields: writable });
      const req = this.json(input);
      if (invalid) return this.validationError('PUT', url, req, writable);
      return this.entry('PUT', url, [], req, 200, 'application/json', this.json({ data: { ...this.object(res, { id }), ...input } }), []);
    }
    if (w < 0.83) {
      this.stats.patch++;
      const some = writable.filter(() => r.chance(0.2)).slice(0, 4);
      const input = this.object(res, { fields: some.length ? some : [writable[0]] });
      const req = this.json(input);
      if (invalid) return this.validationError('PATCH', url, req, writable);
      return this.entry('PATCH', url, [], req, 200, 'application/json', this.json({ data: { ...this.object(res, { id }), ...input } }), []);
    }
    this.stats.delete++;
    return this.entry('DELETE', url, [], null, 204, null, null, []);
  }

  private validationError(method: string, url: URL, req: string, writable: string[]): HarEntry {
    const field = this.r.pick(writable);
    const body = this.json({
      error: { code: 'validation_failed', message: 'The request body is invalid.', details: [{ field, reason: 'invalid' }] },
    });
    return this.entry(method, url, [], req, 422, 'application/json', body, []);
  }

  private image(): HarEntry {
    const r = this.r;
    const size = r.int(2_000, 40_000);
    // PNG signature + IHDR, then incompressible bytes: base64 of real images looks the same.
    const head = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const png = Buffer.concat([head, r.bytes(size - head.length)]);
    const url = new URL(`${CDN}/assets/img/${r.hex(20)}.png`);
    this.stats.images++;
    return this.entry('GET', url, [], null, 200, 'image/png', png.toString('base64'), [], png.length);
  }

  private url(path: string, q: NameValue[]): URL {
    const u = new URL(API + path);
    for (const { name, value } of q) u.searchParams.append(name, value);
    return u;
  }

  private entry(
    method: string,
    url: URL,
    q: NameValue[],
    reqBody: string | null,
    status: number,
    mime: string | null,
    body: string | null,
    extraHeaders: NameValue[],
    rawSize?: number,
  ): HarEntry {
    const r = this.r;
    const h2 = r.chance(0.8);
    const isImage = mime === 'image/png';
    const httpVersion = h2 ? 'http/2.0' : 'HTTP/1.1';
    const size = rawSize ?? (body === null ? 0 : Buffer.byteLength(body));
    const bodySize = isImage ? size : Math.ceil(size / r.int(3, 8)); // brotli-compressed on the wire
    const resHeaders = this.responseHeaders(
      h2,
      mime,
      size,
      extraHeaders.map((h) => ({ name: h2 ? h.name.toLowerCase() : h.name, value: h.value })),
    );
    const headersSize = h2 ? -1 : 350 + r.int(0, 300);
    const content: HarContent =
      body === null
        ? { size: 0, mimeType: 'x-unknown' }
        : isImage
          ? { size, mimeType: mime!, text: body, encoding: 'base64' }
          : { size, mimeType: mime!, compression: size - bodySize, text: body };
    const wait = Math.round((5 + r.next() * (status === 404 ? 40 : 250)) * 1000) / 1000;
    const receive = Math.round(r.next() * (size / 20_000 + 2) * 1000) / 1000;
    const fresh = r.chance(0.02); // a rare new connection: dns/connect/ssl measured
    const dns = fresh ? Math.round(r.next() * 30 * 1000) / 1000 : -1;
    const ssl = fresh ? Math.round((5 + r.next() * 40) * 1000) / 1000 : -1;
    const connect = fresh ? Math.round((ssl + 3 + r.next() * 20) * 1000) / 1000 : -1;
    const blocked = Math.round(r.next() * 4 * 1000) / 1000;
    const send = Math.round(r.next() * 0.5 * 1000) / 1000;
    const time = Math.round((blocked + Math.max(dns, 0) + Math.max(connect, 0) + send + wait + receive) * 1000) / 1000;
    return {
      _initiator: { type: isImage ? 'parser' : 'script' },
      _priority: isImage ? 'Low' : 'High',
      _resourceType: isImage ? 'image' : r.chance(0.85) ? 'fetch' : 'xhr',
      cache: {},
      connection: String(r.int(10000, 99999)),
      pageref: 'page_1',
      request: {
        method,
        url: url.href,
        httpVersion,
        headers: this.requestHeaders(
          h2,
          method,
          url,
          isImage ? 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' : 'application/json, text/plain, */*',
          reqBody,
          isImage ? 'image' : 'empty',
        ),
        queryString: q,
        cookies: this.cookies.map((c) => ({
          name: c.name,
          value: c.value,
          path: '/',
          domain: '.example.com',
          httpOnly: c.name === 'sessionid',
          secure: true,
        })),
        headersSize,
        bodySize: reqBody === null ? 0 : Buffer.byteLength(reqBody),
        ...(reqBody === null ? {} : { postData: { mimeType: 'application/json', text: reqBody } }),
      },
      response: {
        status,
        statusText: h2 ? '' : (STATUS_TEXT[status] ?? ''),
        httpVersion,
        headers: resHeaders,
        cookies: [],
        content,
        redirectURL: '',
        headersSize,
        bodySize,
        _transferSize: bodySize + 300 + r.int(0, 200),
        _error: null,
      },
      serverIPAddress: `203.0.113.${r.int(1, 254)}`,
      startedDateTime: new Date(this.clockMs).toISOString(),
      time,
      timings: { blocked, dns, ssl, connect, send, wait, receive, _blocked_queueing: Math.round(blocked * 0.8 * 1000) / 1000 },
    };
  }

  get startIso(): string {
    return new Date(this.clockMs).toISOString();
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming writer

export interface GenResult {
  file: string;
  bytes: number;
  sha256: string;
  stats: GenStats;
}

/**
 * Writes a HAR of at least `targetBytes` (stops after the entry that crosses it) to `file`.
 * Writes to `file.tmp` and renames, so an interrupted run never leaves a plausible-looking file.
 */
export function generateHar(file: string, targetBytes: number, seed = DEFAULT_SEED, onProgress?: (bytes: number) => void): GenResult {
  const session = new Session(seed);
  const tmp = file + '.tmp';
  const fd = openSync(tmp, 'w');
  const hash = createHash('sha256');
  let written = 0;
  let pending: string[] = [];
  let pendingChars = 0;
  let lastReport = 0;
  const flush = () => {
    if (!pending.length) return;
    const buf = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingChars = 0;
    hash.update(buf);
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
    written += buf.length;
    if (onProgress && written - lastReport >= 16e6) {
      lastReport = written;
      onProgress(written);
    }
  };
  const emit = (s: string) => {
    pending.push(s);
    pendingChars += s.length;
    if (pendingChars >= 1 << 20) flush();
  };
  try {
    // Chrome's "Save all as HAR" output: JSON.stringify(har, null, 2).
    const pages = [
      {
        startedDateTime: session.startIso,
        id: 'page_1',
        title: `${ORIGIN}/dashboard`,
        pageTimings: { onContentLoad: 812.4, onLoad: 1403.9 },
      },
    ];
    emit('{\n  "log": {\n    "version": "1.2",\n    "creator": {\n      "name": "WebInspector",\n      "version": "537.36"\n    },\n');
    emit('    "pages": ' + JSON.stringify(pages, null, 2).replace(/\n/g, '\n    ') + ',\n');
    emit('    "entries": [');
    let approx = 0;
    for (let i = 0; approx < targetBytes; i++) {
      const s = (i ? ',\n      ' : '\n      ') + JSON.stringify(session.next(), null, 2).replace(/\n/g, '\n      ');
      emit(s);
      // Byte length matters only for the stopping rule; the header is < 1 KB and ignored.
      approx += Buffer.byteLength(s);
    }
    emit('\n    ]\n  }\n}\n');
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return { file, bytes: written, sha256: hash.digest('hex'), stats: session.stats };
}

// Standalone use: node dist/bench/gen-har.js <MB> <out.har> [seed]
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [mb, out, seed] = process.argv.slice(2);
  if (!mb || !out || !(Number(mb) > 0)) {
    process.stderr.write('usage: node dist/bench/gen-har.js <MB> <out.har> [seed]\n');
    process.exit(2);
  }
  const res = generateHar(out, Number(mb) * 1e6, seed ? Number(seed) : DEFAULT_SEED, (b) =>
    process.stderr.write(`  ${(b / 1e6).toFixed(0)} MB\r`),
  );
  process.stdout.write(JSON.stringify(res) + '\n');
}
