/**
 * The connect-mode service-worker `block` policy holder (BS-12, BS-16 to BS-18). Over one
 * CDP session it installs a future-document script that makes
 * `navigator.serviceWorker.register` reject, patches the frames already running, checks
 * the page's frames for a controller or registration, and at cleanup removes its script
 * and restores `register` before capstate disconnects. Launch mode needs none of this:
 * Playwright blocks service workers in the profile it owns (launch.ts).
 */
import { randomUUID } from 'node:crypto';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { CapstateError } from '../errors.js';
import type { Captures } from './artifacts.js';
import { within } from './deadline.js';
import { firstLine } from './launch.js';

/**
 * BS-12's fixed deadlines: neither follows `command_timeout_ms`. Exported as one object
 * so tests can shorten them; capture code reads them when a holder is created.
 */
export const SERVICE_WORKER_DEADLINES = { check_ms: 10_000, restore_grace_ms: 5_000 };

export interface HolderOptions {
  /** BS-11: installing is an environment command, bounded by `command_timeout_ms`. */
  commandTimeoutMs: number;
  checkMs?: number;
}

const BLOCKED = 'service-worker registration is blocked: environment.service_workers is "block"';

/** Patches `register` in one realm; the original descriptor is kept under `key` for the restore. */
function patchSource(key: string): string {
  return `(() => {
  const p = globalThis.ServiceWorkerContainer && globalThis.ServiceWorkerContainer.prototype;
  if (!p || Object.prototype.hasOwnProperty.call(p, ${JSON.stringify(key)})) return false;
  const desc = Object.getOwnPropertyDescriptor(p, 'register');
  if (!desc) return false;
  const patched = { register() { return Promise.reject(new DOMException(${JSON.stringify(BLOCKED)}, 'SecurityError')); } }.register;
  Object.defineProperty(p, ${JSON.stringify(key)}, { value: { desc, patched }, configurable: true });
  Object.defineProperty(p, 'register', { ...desc, value: patched });
  return true;
})()`;
}

/** Undoes `patchSource` in one realm, unless the page has since replaced `register` itself. */
function restoreSource(key: string): string {
  return `(() => {
  const p = globalThis.ServiceWorkerContainer && globalThis.ServiceWorkerContainer.prototype;
  if (!p || !Object.prototype.hasOwnProperty.call(p, ${JSON.stringify(key)})) return false;
  const saved = p[${JSON.stringify(key)}];
  delete p[${JSON.stringify(key)}];
  if (p.register === saved.patched) Object.defineProperty(p, 'register', saved.desc);
  return true;
})()`;
}

/** Runs in every frame: controlled, registered, or neither. */
async function probe(): Promise<boolean> {
  const sw = (
    globalThis as unknown as { navigator: { serviceWorker?: { controller: object | null; getRegistrations(): Promise<unknown[]> } } }
  ).navigator.serviceWorker;
  if (!sw) return false; // not a secure context: no service worker can exist here
  if (sw.controller) return true;
  try {
    return (await sw.getRegistrations()).length > 0;
  } catch (e) {
    // An opaque origin (about:blank, sandboxed frames) cannot hold registrations.
    if (e instanceof DOMException && (e.name === 'SecurityError' || e.name === 'InvalidStateError')) return false;
    throw e;
  }
}

/** A main-world context that went away with its document is not a failure of the restore. */
const contextGone = (e: unknown) => /Cannot find context|Execution context was destroyed|context with specified id/i.test(firstLine(e));

/** The policy holder (BS-18): one CDP session from install through every check to restore. */
export class ServiceWorkerBlock {
  private session: CDPSession | null = null;
  private installing: Promise<void> = Promise.resolve();
  private transportLost = false;
  private readonly key = `__capstate_sw_${randomUUID().replace(/-/g, '')}`;
  private readonly scripts = new Set<string>();
  /** Main-world contexts alive in the page, by id; each may hold the patch. */
  private readonly contexts = new Set<number>();
  private readonly checkMs: number;
  private readonly graceMs: number;
  private closed = false;
  /** Set once our own detach answered: a retry after a late success has nothing left to do. */
  private detached = false;
  /** BS-18: why the last restore did not finish; cleared only by a close that succeeds. */
  uncertainty: string | null = null;

  constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly opts: HolderOptions,
  ) {
    this.checkMs = opts.checkMs ?? SERVICE_WORKER_DEADLINES.check_ms;
    this.graceMs = SERVICE_WORKER_DEADLINES.restore_grace_ms;
  }

  /** Opens the session, adds the future-document script and patches the running frames. */
  async install(): Promise<void> {
    this.installing = this.installSteps();
    const done = await within(
      this.opts.commandTimeoutMs,
      this.installing.then(
        () => null,
        (e: unknown) => e,
      ),
    );
    if (!done.ok || done.value !== null) {
      const why = done.ok ? firstLine(done.value) : `no answer within command_timeout_ms ${this.opts.commandTimeoutMs}`;
      throw new CapstateError(
        'service-worker-policy-unverified',
        `the service-worker block could not be installed on the page (${why}); the capture is rejected because environment.service_workers "block" could not be enforced`,
        { path: 'environment.service_workers' },
      );
    }
  }

  private async installSteps(): Promise<void> {
    const s = await this.context.newCDPSession(this.page);
    this.session = s;
    s.on('close', () => {
      this.transportLost = true;
    });
    s.on('Runtime.executionContextCreated', ({ context: c }) => {
      if ((c.auxData as { isDefault?: boolean } | undefined)?.isDefault) this.contexts.add(c.id);
    });
    s.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      this.contexts.delete(executionContextId);
    });
    s.on('Runtime.executionContextsCleared', () => {
      this.contexts.clear();
    });
    // Runtime.enable reports the contexts that already exist before it answers.
    await s.send('Runtime.enable');
    // Without Page.enable on this session Chromium keeps the script but never runs it.
    await s.send('Page.enable');
    // runImmediately also patches running contexts where Chromium supports it; the explicit
    // pass below covers browsers that ignore it (the patch is idempotent).
    const { identifier } = await s.send('Page.addScriptToEvaluateOnNewDocument', { source: patchSource(this.key), runImmediately: true });
    this.scripts.add(identifier);
    await this.inContexts(s, patchSource(this.key), false);
  }

  /** Runs `source` in every known main-world context; a context that went away is skipped (and, with `forget`, dropped). */
  private async inContexts(s: CDPSession, source: string, forget: boolean): Promise<void> {
    for (const id of [...this.contexts]) {
      try {
        await s.send('Runtime.evaluate', { expression: source, contextId: id, returnByValue: true });
      } catch (e) {
        if (!contextGone(e)) throw e;
      }
      if (forget) this.contexts.delete(id);
    }
  }

  /**
   * BS-17: rejects the capture when the page or a frame is controlled or registered.
   * BS-12: the check has a fixed deadline; a check that does not finish rejects too.
   */
  async check(collected: Captures | null): Promise<void> {
    let expired = false;
    const result = await within(
      this.checkMs,
      this.inspect(() => expired).then(
        (found) => ({ found }),
        (e: unknown) => ({ error: e }),
      ),
    );
    expired = true;
    const details = { diagnostics: { collected_artifacts: collected } };
    if (!result.ok || 'error' in result.value) {
      const why = result.ok && 'error' in result.value ? firstLine(result.value.error) : `no answer within the fixed ${this.checkMs} ms`;
      throw new CapstateError(
        'service-worker-policy-unverified',
        `the service-worker check could not be completed (${why}), so environment.service_workers "block" is not verified; the capture is rejected`,
        { path: 'environment.service_workers', details },
      );
    }
    if (result.value.found) {
      throw new CapstateError(
        'service-worker-policy',
        'the page or one of its frames is controlled by a service worker or has a registration, and environment.service_workers is "block"; the capture is rejected (existing registrations are left alone)',
        { path: 'environment.service_workers', details },
      );
    }
  }

  private async inspect(expired: () => boolean): Promise<boolean> {
    // BS-18: without its transport the holder cannot vouch for its future-document script.
    if (this.transportLost || !this.session) throw new Error('the policy holder lost its CDP session');
    for (const f of this.page.frames()) {
      for (;;) {
        if (expired()) return false;
        try {
          if (await f.evaluate(probe)) return true;
          break;
        } catch (e) {
          if (f.isDetached()) break;
          // A navigation replaced the frame's document mid-check: ask the new one.
          if (!contextGone(e)) throw e;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    }
    return false;
  }

  /**
   * BS-17, BS-18: removes the scripts capstate added and restores `register` in the frames
   * still alive, on the same session, then detaches. Bounded by the fixed restore grace
   * (BS-12). Throws on failure and keeps the session, so a later call retries it.
   */
  async close(graceMs = this.graceMs): Promise<void> {
    if (this.closed) return;
    const done = await within(
      graceMs,
      this.closeSteps().then(
        () => null,
        (e: unknown) => e,
      ),
    );
    if (done.ok && done.value === null) {
      this.closed = true;
      this.uncertainty = null;
      return;
    }
    this.uncertainty = done.ok
      ? `the service-worker block was not fully removed: ${firstLine(done.value)}`
      : // The fixed grace, not what was left of it for this attempt: a retry inside one grace (release) may get 1 ms.
        `the service-worker block was not removed within the fixed ${this.graceMs} ms restore grace`;
    throw new Error(this.uncertainty);
  }

  private async closeSteps(): Promise<void> {
    // An install that outlived its deadline may still add its script: undo after it settles.
    await this.installing.catch(() => {});
    const s = this.session;
    if (!s || this.detached) return; // no session opened, or a timed-out attempt finished late
    if (this.transportLost) {
      // The scripts and patches went with the target; a live page may still hold patches.
      if (this.page.isClosed()) return;
      throw new Error('the policy holder lost its CDP session while the page is still open');
    }
    for (const identifier of [...this.scripts]) {
      await s.send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
      this.scripts.delete(identifier);
    }
    await this.inContexts(s, restoreSource(this.key), true);
    await s.detach();
    this.detached = true;
  }

  /**
   * Cleanup before disconnect: one close, and on failure one retry on the retained
   * transport (BS-18), both inside one restore grace. Returns what stays uncertain.
   */
  async release(): Promise<string | null> {
    const end = Date.now() + this.graceMs;
    for (let attempt = 0; attempt < 2 && !this.closed; attempt++) {
      const left = end - Date.now();
      if (attempt > 0 && left <= 0) break;
      try {
        await this.close(Math.max(left, 0));
      } catch {
        /* recorded in uncertainty */
      }
    }
    return this.closed ? null : this.uncertainty;
  }
}

/**
 * BS-18: a cleanup failure after a failed capture never replaces the primary error; it is
 * added to the primary's `details.diagnostics.cleanup`.
 */
export function keepPrimary(primary: unknown, cleanup: { step: string; message: string }[]): void {
  if (!cleanup.length || !(primary instanceof CapstateError)) return;
  const details = (primary.context.details ??= {}) as { diagnostics?: Record<string, unknown> };
  const diagnostics = (details.diagnostics ??= {});
  diagnostics.cleanup = [...((diagnostics.cleanup as unknown[] | undefined) ?? []), ...cleanup];
}
