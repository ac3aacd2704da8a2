/**
 * Nesting depth of a parsed JSON value, measured without recursion. A caller's document
 * (load_state's state) can nest 100,000 levels: V8's JSON.parse reads that, but every
 * recursive walk after it (argument checks, exact stringify, hashing) overflows the stack.
 * Measuring it first, with an explicit stack, turns that into a refusal naming the place.
 * The ground floor: this module imports nothing of capstate.
 */

/** One step of a path: a member name or an array index. */
export type PathStep = string | number;

/**
 * The path to the first container nested deeper than `maxDepth` levels (the value itself
 * is level 1 when it is an object or array), in document order; null when none is.
 *
 * @example firstTooDeep({ a: [[1]] }, 2) // ['a', 0]
 */
export function firstTooDeep(value: unknown, maxDepth: number): PathStep[] | null {
  // Each frame: the container, its keys (objects) or length (arrays), the next position, and
  // the step from its parent (for the path). Depth is the stack's length.
  interface Frame {
    v: unknown;
    keys: string[] | null;
    length: number;
    next: number;
    step: PathStep | null;
  }
  const open = (v: unknown, step: PathStep | null): Frame | null => {
    if (v === null || typeof v !== 'object') return null;
    if (Array.isArray(v)) return { v, keys: null, length: v.length, next: 0, step };
    // Maps (exact JSON's objects with index-like keys) and plain objects alike.
    const keys = v instanceof Map ? [...v.keys()].map(String) : Object.keys(v);
    return { v, keys, length: keys.length, next: 0, step };
  };
  const root = open(value, null);
  if (!root) return null;
  const stack: Frame[] = [root];
  if (maxDepth < 1) return [];
  while (stack.length) {
    const f = stack[stack.length - 1];
    if (f.next >= f.length) {
      stack.pop();
      continue;
    }
    const i = f.next++;
    const step: PathStep = f.keys ? f.keys[i] : i;
    const child = f.keys ? (f.v instanceof Map ? f.v.get(step) : (f.v as Record<string, unknown>)[step as string]) : (f.v as unknown[])[i];
    const c = open(child, step);
    if (!c) continue;
    if (stack.length + 1 > maxDepth) return [...stack.slice(1).map((x) => x.step as PathStep), step];
    stack.push(c);
  }
  return null;
}

/**
 * A path as words, `state.entities[0].value["a b"]`, from `root`. A path longer than
 * `maxChars` keeps its start and its end around the number of steps left out, so a
 * 100,000-level path names where it goes without being 100,000 steps long.
 */
export function pathText(root: string, path: readonly PathStep[], maxChars = 256): string {
  const step = (s: PathStep) =>
    typeof s === 'number'
      ? `[${s}]`
      : /^[A-Za-z_$][\w$]*$/.test(s)
        ? `.${s}`
        : `[${JSON.stringify(s.length > 64 ? s.slice(0, 64) + '…' : s)}]`;
  const steps = path.map(step);
  const whole = root + steps.join('');
  if (whole.length <= maxChars) return whole;
  const head: string[] = [],
    tail: string[] = [];
  let used = root.length,
    i = 0,
    j = steps.length - 1;
  // Up to two thirds for the start (where the document goes deep), the rest for the end.
  while (i < j && used + steps[i].length <= (maxChars * 2) / 3) {
    used += steps[i].length;
    head.push(steps[i++]);
  }
  while (j > i && used + steps[j].length <= maxChars) {
    used += steps[j].length;
    tail.unshift(steps[j--]);
  }
  return `${root}${head.join('')}…(${j - i + 1} more steps)…${tail.join('')}`;
}
