/**
 * Path shapes for the manifest (OQ-1, OQ-5): segments, trailing slashes, format
 * suffixes, id-looking and version segments, and matching a path against a template.
 */

export interface PathShape {
  /** Percent-decoded segments; a format suffix is removed from the last one. */
  segments: string[];
  /** Segments as written in the URL (still percent-encoded), suffix removed. */
  raw: string[];
  trailingSlash: boolean;
  /** `.json`, `.xml`, … on the last segment, or ''. */
  suffix: string;
}

const SUFFIX = /^(.*[^.])(\.(?:json|xml|csv|txt|atom|rss|ya?ml|html?))$/i;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `/issues/12.json` → segments ['issues', '12'], suffix '.json'. */
export function parsePath(pathname: string): PathShape {
  let p = pathname.startsWith('/') ? pathname.slice(1) : pathname;
  const trailingSlash = p.length > 0 && p.endsWith('/');
  if (trailingSlash) p = p.slice(0, -1);
  const raw = p === '' ? [] : p.split('/');
  let suffix = '';
  if (raw.length > 0) {
    const m = SUFFIX.exec(raw[raw.length - 1]);
    if (m) {
      raw[raw.length - 1] = m[1];
      suffix = m[2];
    }
  }
  return { segments: raw.map(decode), raw, trailingSlash, suffix };
}

/** OQ-5: `v1`, `v2.1`, `2024-01-01`. */
export function isVersionSegment(s: string): boolean {
  return /^v\d+(\.\d+)*$/i.test(s) || /^\d{4}-\d{2}-\d{2}$/.test(s);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A file name (`fav32.png`, `main.3f2a1b9c.js`, `site.webmanifest`) names a static file, not an entity. */
export function hasFileExtension(s: string): boolean {
  return /\.[a-z][a-z0-9]{0,11}$/i.test(s);
}

/**
 * Issue 18 (OQ-1 a): a strong id shape, a parameter even when the position shows one value:
 * all digits, a UUID, hex of 8+ characters with a digit, or a high-entropy token.
 */
export function isStrongId(s: string): boolean {
  if (isVersionSegment(s) || hasFileExtension(s)) return false;
  if (/^\d+$/.test(s)) return true;
  if (UUID.test(s)) return true;
  if (/^[0-9a-f]{8,}$/i.test(s) && /\d/.test(s)) return true;
  return isHighEntropyToken(s);
}

/**
 * Issue 18: 8+ token characters in which letters and digits alternate at least three times
 * (`dQw4w9WgXcQ`, `a1b2c3d4`, `cus_J5xY7AbC`), so a word with a number in it or after it
 * (`GetNavigationMenu2`, `wp-lightbox2`, `example3`, `oauth2callback`) is not one.
 */
export function isHighEntropyToken(s: string): boolean {
  if (s.length < 8 || !/^[A-Za-z0-9_-]+$/.test(s)) return false;
  // Kubernetes-style API versions (`v2alpha1`, `v1beta12`) alternate too, and are static.
  if (/^v\d+(alpha|beta|rc)\d+$/i.test(s)) return false;
  const classes = s
    .replace(/[_-]/g, '')
    .replace(/[A-Za-z]+/g, 'a')
    .replace(/\d+/g, '0');
  return classes.length >= 4;
}

/**
 * OQ-1 (a): an id-looking segment, strong or weak: a strong id, or 4+ characters mixing
 * letters and digits (`it-01`, `issue-62`). A weak one is a parameter only where sibling
 * paths show a second value (issue 18; `decideParams`).
 */
export function looksLikeId(s: string): boolean {
  if (isVersionSegment(s) || hasFileExtension(s)) return false;
  if (isStrongId(s)) return true;
  return s.length >= 4 && /[a-z]/i.test(s) && /\d/.test(s) && /^[\w.~:@-]+$/.test(s);
}

/** A template such as `/repos/{owner}/{repo}/issues/{number}.json` split into parts. */
export interface TemplateShape {
  parts: ({ kind: 'static'; text: string } | { kind: 'param'; name: string })[];
  trailingSlash: boolean;
  suffix: string;
}

/** Parses a template string; throws with a message on malformed templates. */
export function parseTemplate(template: string): TemplateShape {
  if (!template.startsWith('/')) throw new Error('a template starts with "/"');
  const shape = parsePath(template);
  const parts = shape.raw.map((seg) => {
    const m = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(seg);
    if (m) return { kind: 'param' as const, name: m[1] };
    if (/[{}]/.test(seg)) throw new Error(`segment ${JSON.stringify(seg)} mixes text and a parameter; a parameter is a whole segment`);
    return { kind: 'static' as const, text: decode(seg) };
  });
  return { parts, trailingSlash: shape.trailingSlash, suffix: shape.suffix };
}

/** Whether a path fits a template; returns the parameter values or null. */
export function matchTemplate(t: TemplateShape, p: PathShape): string[] | null {
  // OQ-1: a trailing slash does not change the shape.
  if (t.parts.length !== p.segments.length || t.suffix.toLowerCase() !== p.suffix.toLowerCase()) return null;
  const values: string[] = [];
  for (let i = 0; i < t.parts.length; i++) {
    const part = t.parts[i];
    if (part.kind === 'static') {
      if (part.text !== p.segments[i]) return null;
    } else values.push(p.segments[i]);
  }
  return values;
}

/** Renders parts back to a template string. */
export function renderTemplate(t: TemplateShape): string {
  const body = t.parts.map((p) => (p.kind === 'param' ? `{${p.name}}` : encodeSegment(p.text))).join('/');
  return `/${body}${t.suffix}${t.trailingSlash ? '/' : ''}`;
}

function encodeSegment(s: string): string {
  // Keep what URLs commonly leave readable; encode the rest.
  // The u flag keeps a surrogate pair (an emoji) one character, so encodeURIComponent never sees half of one.
  return s.replace(/[^\w.~:@!$&'()*+,;=-]/gu, (c) => encodeURIComponent(c));
}

/** Whether a template segment is one parameter (`{id}`). */
export const isParamSegment = (s: string): boolean => /^\{[^}]+\}$/.test(s);

/** An item route's template, `PREFIX/{param}`: a last segment that is a parameter, and no other. */
export function isItemTemplate(template: string): boolean {
  const segs = template.split('/');
  return segs.length >= 2 && isParamSegment(segs[segs.length - 1]) && !segs.slice(0, -1).some(isParamSegment);
}

/**
 * The parameter an item template ends in (`/posts/{id}`, Redmine's `/issues/{id}.json`, Django
 * REST framework's `/api/posts/{id}/`: a suffix or a trailing slash after it), else undefined.
 */
export function itemParamOf(template: string): string | undefined {
  return /\{([^}/]+)\}[^/{}]*\/?$/.exec(template)?.[1];
}

/** `{uid}` names of a template, in order. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}
