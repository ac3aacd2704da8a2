/**
 * One way to bound work by a timer (BS-10 to BS-12): race it, and always clear the timer
 * so a finished race leaves nothing pending.
 */
export type Deadline<T> = { ok: true; value: T } | { ok: false };

/** `p`'s outcome, or `{ok: false}` when `ms` pass first (a rejection of `p` is thrown). */
export async function within<T>(ms: number, p: Promise<T>): Promise<Deadline<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Deadline<T>>((r) => {
    timer = setTimeout(() => r({ ok: false }), ms);
  });
  try {
    return await Promise.race([p.then((value) => ({ ok: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `p`'s value, or the error `late()` makes when `ms` pass first. */
export async function withDeadline<T>(p: Promise<T>, ms: number, late: () => Error): Promise<T> {
  const r = await within(ms, p);
  if (!r.ok) throw late();
  return r.value;
}
