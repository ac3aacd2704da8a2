/**
 * Which capture a one-capture command (state, report, card, check-effects, serve) reads
 * when the store holds several and no `--capture` was given (issue 46): the latest loaded,
 * said in one line on stderr with the others and their files, as a version-control tool
 * shows the current branch, instead of refusing with a usage error.
 */
import { log } from './common.js';

export interface StoredCapture {
  id: number;
  /** The capture's file as it was loaded (the `capture.path` column). */
  path: string;
}

/** The others named in the line; more than this are counted and left to `capstate info`. */
const LISTED = 8;

/**
 * The latest capture (the highest id: ids count up as captures are loaded) when there are
 * several, said on stderr; null for none or one, which the caller's pickCapture handles.
 */
export function latestOfSeveral(captures: StoredCapture[], store: string): number | null {
  if (captures.length < 2) return null;
  const latest = captures.reduce((a, b) => (b.id > a.id ? b : a));
  const others = captures.filter((c) => c !== latest);
  const listed = others.slice(0, LISTED).map((c) => `${c.id} (${c.path})`);
  if (others.length > LISTED) listed.push(`and ${others.length - LISTED} more (capstate info)`);
  log(
    `${store} holds ${captures.length} captures; reading the latest, ${latest.id} (${latest.path}); ` +
      `${others.length === 1 ? 'the other' : 'the others'}: ${listed.join(', ')}; choose one with --capture ID`,
  );
  return latest.id;
}
