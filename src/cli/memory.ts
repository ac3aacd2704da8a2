/**
 * Issue 14 (RSS flat at any capture size): V8 grows its heap by a large factor after each
 * collection, so a pass whose live objects stay near the OQ-32 budget (a type's bodies and
 * values at a time, ~20 MB after each type at 500 MB) still reached a 430 MB resident set:
 * garbage waiting for a heap that had room. A smaller growing factor makes V8 collect
 * sooner instead of growing; it is a soft bound (no limit to run into, so no out-of-memory
 * crash where a unit legitimately needs more). The flag is read at each collection, so
 * setting it after start-up takes effect (measured in bench/README.md).
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Node flags the CLI is started with (the shebang of main.ts, the `capstate` script, the
 * bench): V8's young generation for the main thread, bounded to 4 MiB semi-spaces (the
 * default grows to 16 MiB each). A load's main thread allocates every entry's strings
 * there; with the default young generation it held 25–45 MB more at the load's peak (h500:
 * 246–273 MB against 210–240 MB, bench/README.md). Unlike the growing factor below it is
 * read once, when the heap is set up, so it cannot be set from inside the process; the
 * load's parse worker has its own (`resourceLimits`, pipeline.ts). test/cli-node-flags.test.ts
 * holds the two start-ups to this list.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/** The heap's growth after a collection, in percent of the live size (V8's default varies between ~10% and 300%+). */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Applies the bound for this process (and the worker threads it starts: V8 flags are
 * process-wide). `CAPSTATE_HEAP_GROWING_PERCENT` overrides it for measuring (0: V8's own).
 */
export function boundHeapGrowth(env = process.env): void {
  const asked = env.CAPSTATE_HEAP_GROWING_PERCENT;
  const percent = asked !== undefined && /^[0-9]{1,4}$/.test(asked) ? Number(asked) : HEAP_GROWING_PERCENT;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
