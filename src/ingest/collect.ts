/**
 * A full collection between a load's phases (facts, manifest, state; issue 14, RSS ≤ 256 MB):
 * each phase's garbage is otherwise still in the heap when the next one starts, and their
 * peaks add up. A 1 GB load peaked early in its state pass at 258 MB (GNU time, decimal MB),
 * whose own peak run alone is 226 MB; with a collection before and after the manifest, 239 MB.
 * `gc` is not given to scripts unless asked for; asked for at run time, V8 puts it in each new
 * context, from which it is taken (nothing else in the process sees it).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let fullCollection: (() => void) | null = null;

export function collectBetweenPhases(): void {
  if (!fullCollection) {
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  fullCollection();
}
