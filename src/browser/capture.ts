/**
 * `capture_browser_scenario` (BS-1): validate, resolve secrets, acquire the browser, seed
 * storage, navigate to `start_url`, run the actions in order (a failed one cancels the
 * rest, BS-35), capture the requested artifacts, drain network content, clean up, and
 * return Evidence (docs/evidence-format.md). The CLI command and the MCP tool both call
 * `captureBrowserScenario` with the same scenario object.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { CapstateError } from '../errors.js';
import { capstateVersion } from '../store/open.js';
import { cancellable, resolveUrl, runAction, StepFailure, type ActionContext } from './actions.js';
import { captureArtifacts, completeness, notRequested, sanitizedUrl, type Captures } from './artifacts.js';
import type { Evidence, Limitation, StepRecord } from './evidence.js';
import { within } from './deadline.js';
import { acquireBrowser, firstLine } from './launch.js';
import { EventLog, ListenerOwners } from './limits.js';
import { NetworkObserver } from './network.js';
import { Redaction, resolveSecrets } from './redaction.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  effectiveLimits,
  eventFamilies,
  networkContent,
  validateScenario,
  type Artifact,
  type EventFamily,
  type Scenario,
} from './schema.js';
import { StorageSeeder } from './seed.js';
import { ServiceWorkerBlock } from './service-workers.js';
import { applyConnectEnvironment, release } from './session.js';

export type { Evidence, Limitation, StepRecord } from './evidence.js';

export interface CaptureOptions {
  /** Where declared secrets are read from (BS-9); defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Cancels the capture: the running step and the rest become `cancelled`, cleanup still runs. */
  signal?: AbortSignal;
  /** Names the input in validation errors. */
  file?: string;
  /** Told when each step starts (the CLI's progress on stderr). */
  onStep?: (stepId: string) => void;
}

const version = capstateVersion;
const playwrightVersion = (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;

/**
 * Runs one browser scenario and returns its Evidence. Throws CapstateError for invalid
 * input (before any browser starts) and for a browser that cannot be acquired.
 *
 * @example
 * const evidence = await captureBrowserScenario({
 *   browser: { mode: 'launch', executable_path: '/usr/bin/chromium' },
 *   start_url: { url: 'http://127.0.0.1:3000/' },
 *   actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 100 }],
 * });
 */
export async function captureBrowserScenario(input: unknown, opts: CaptureOptions = {}): Promise<Evidence> {
  const scenario = validateScenario(input, opts.file);
  const secrets = resolveSecrets(scenario, opts.env ?? process.env, opts.file);
  return run(scenario, secrets, opts.signal, opts.onStep);
}

const WORLD_FAMILIES: Partial<Record<EventFamily, string>> = {
  frames: 'frame',
  workers: 'worker',
  websockets: 'WebSocket',
  downloads: 'download',
};

async function run(s: Scenario, secrets: Map<string, string>, outer?: AbortSignal, onStep?: (stepId: string) => void): Promise<Evidence> {
  const commandTimeout = s.command_timeout_ms ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const limits = effectiveLimits(s);
  const families = eventFamilies(s);
  const content = networkContent(s);
  const afterEach = s.capture?.after_each_step ?? [];
  // BS-3: the default capture is the final URL.
  const atEnd = s.capture?.at_end ?? ['url'];
  const redaction = new Redaction(secrets);
  const log = new EventLog(limits);
  const limitations: Limitation[] = [];
  const ineligible: string[] = [];
  const limit = (code: string, rule: string, message: string) => {
    if (!limitations.some((l) => l.code === code)) limitations.push({ code, rule, message });
  };
  const abort = new AbortController();
  const onOuter = () => abort.abort();
  outer?.addEventListener('abort', onOuter, { once: true });
  if (outer?.aborted) abort.abort();
  const startUrl = resolveUrl(s.start_url, secrets);
  const startOrigin = new URL(startUrl).origin;
  let stepId: string | null = null;

  const seeder = new StorageSeeder(s, secrets);
  const session = await acquireBrowser(s, commandTimeout);
  const { context, page } = session;
  let network: NetworkObserver | null = null;
  const steps: StepRecord[] = [];
  let initial: Evidence['initial_state'];
  // BS-17: the connect-mode block policy holder; restored before disconnect.
  let swBlock: ServiceWorkerBlock | null = null;
  let primary: { error: unknown } | null = null;
  try {
    const pages = new Set<Page>([page]);
    const owners = new ListenerOwners(log);
    const push = (kind: string, fields: Record<string, unknown>) =>
      log.push({ kind, step_id: stepId, ...redaction.view().json(fields), observed_at: new Date().toISOString() });
    const observe = (p: Page) => {
      if (families.includes('console')) p.on('console', (m) => push('console', { type: m.type(), text: m.text(), location: m.location() }));
      if (families.includes('page-errors')) p.on('pageerror', (e) => push('page-error', { name: e.name, message: e.message }));
      if (families.includes('frames')) {
        p.on('frameattached', (f) => push('frame-attached', { url: f.url(), name: f.name() }));
        p.on('framenavigated', (f) => push('frame-navigated', { url: f.url(), name: f.name(), is_main: f === p.mainFrame() }));
        p.on('framedetached', (f) => push('frame-detached', { url: f.url(), name: f.name() }));
      }
      if (families.includes('workers')) {
        p.on('worker', (w) => {
          // BS-41: a worker beyond the listener-owner capacity is counted, not observed.
          const release = owners.admit('worker-created');
          if (!release) return;
          push('worker-created', { url: w.url() });
          w.on('close', () => {
            push('worker-closed', { url: w.url() });
            release();
          });
        });
      }
      if (families.includes('websockets')) {
        p.on('websocket', (ws) => {
          const release = owners.admit('websocket-open');
          if (!release) return;
          ws.on('close', release);
          push('websocket-open', { url: ws.url() });
          const frame = (dir: string) => (f: { payload: string | Buffer }) =>
            push(
              `websocket-frame-${dir}`,
              typeof f.payload === 'string' ? { url: ws.url(), text: f.payload } : { url: ws.url(), base64: f.payload.toString('base64') },
            );
          ws.on('framesent', frame('sent'));
          ws.on('framereceived', frame('received'));
          ws.on('close', () => push('websocket-close', { url: ws.url() }));
        });
      }
      // Downloads are never accepted; each one is cancelled and, when selected, recorded.
      p.on('download', (d) => {
        if (families.includes('downloads')) push('download-cancelled', { url: d.url(), suggested_filename: d.suggestedFilename() });
        void d.cancel().catch(() => {});
      });
      p.on('popup', (popup) => {
        pages.add(popup);
        const release = owners.admit('popup-opened');
        // BS-44: selected families are observed on popups too, nested ones included.
        if (release) {
          popup.on('close', release);
          observe(popup);
        }
        if (release && families.includes('popups')) {
          push('popup-opened', { url: popup.url() });
          popup.on('close', () => push('popup-closed', { url: popup.url() }));
        }
        // BS-33: a popup's first script is not guaranteed to see the storage seeds.
        if (seeder.hasNonCookieSeeds) {
          limit(
            'popup-storage-seeds',
            'BS-33',
            'a popup was discovered; storage initialization for its first script is not guaranteed, so storage coverage is missing',
          );
          ineligible.push('popup-storage-seeds');
        }
        // BS-46: early frame, worker, WebSocket and download events of a popup are lost.
        for (const [fam, what] of Object.entries(WORLD_FAMILIES)) {
          if (!families.includes(fam as EventFamily)) continue;
          limit(
            `popup-early-${fam}`,
            'BS-46',
            `a popup was discovered; its ${what} events before its first navigation committed cannot be recovered, so events are missing`,
          );
          ineligible.push(`popup-early-${fam}`);
        }
      });
    };
    if (families.includes('network')) {
      network = new NetworkObserver({
        log,
        redaction,
        content,
        limits,
        stepId: () => stepId,
        // BS-45: a connected context may hold unrelated tabs; keep the root page and its popups.
        accept:
          session.mode === 'launch'
            ? () => true
            : (req) => {
                try {
                  return pages.has(req.frame().page());
                } catch {
                  return false;
                }
              },
      });
      network.attach(context);
      // BS-67: cancellation interrupts content reads in progress as soon as it happens.
      const n = network;
      abort.signal.addEventListener('abort', () => n.cancel(), { once: true });
      if (abort.signal.aborted) n.cancel();
    }
    owners.admit('page');
    observe(page);
    if (session.mode === 'connect') {
      limit(
        'connect-locale',
        'BS-25',
        "connected capture: the page keeps the caller's navigator language and Accept-Language; environment.locale sets Intl formatting only",
      );
      limit(
        'connect-emulation',
        'BS-24',
        'connected capture: detaching a CDP session may clear caller-owned emulation (e.g. navigator.platform); capstate does not restore it',
      );
      limit('attach-gap', 'BS-43', 'connected capture: events before capstate attached are not observed');
      ineligible.push('attach-gap');
      await applyConnectEnvironment(s, page, commandTimeout);
    }
    if (s.actions.some((a) => a.action === 'request')) {
      limit('request-steps', 'BS-56', "request steps sent their declared requests through the page's fetch in the main world");
    }
    if (families.includes('network')) limit('no-initiators', 'BS-69', 'Playwright scenario captures provide no initiator stacks');
    try {
      await seeder.install(context, page);
    } catch (e) {
      throw new CapstateError('storage-seed-failed', `the storage seeds could not be written: ${redaction.view().text(firstLine(e))}`, {
        path: 'storage',
      });
    }
    // BS-32: a seeding failure fails the navigation or action that reached the document.
    // One promise for the whole capture; marked handled, since it may fail between races.
    const seedFailure = seeder.failure().catch((e: Error) => {
      throw new StepFailure('storage-seed-failed', e.message);
    });
    seedFailure.catch(() => {});
    const seeded = <T>(p: Promise<T>) => Promise.race([p, seedFailure]);

    if (session.mode === 'connect' && (s.environment?.service_workers ?? 'block') === 'block') {
      swBlock = new ServiceWorkerBlock(context, page, { commandTimeoutMs: commandTimeout });
      await swBlock.install();
    }
    const block = swBlock;
    const swCheck = async (collected: Captures | null) => {
      if (seeder.failed === null) await block?.check(collected);
    };
    // BS-17 checks around the artifact capture. BS-32: seeding that fails meanwhile (a
    // navigation the action started) leaves the page paused; the step fails instead of
    // waiting on a page that cannot answer.
    const observeStep = async (requested: Artifact[]) => {
      await swCheck(null);
      const c = await captureArtifacts(page, context, requested, redaction.view(), commandTimeout);
      await swCheck(c);
      return c;
    };
    // BS-11: the initial navigation, up to the load event, is bounded by command_timeout_ms.
    const t0 = performance.now();
    let initialError: { code: string; message: string } | undefined;
    try {
      await swCheck(null);
      await cancellable(seeded(page.goto(startUrl, { timeout: commandTimeout, waitUntil: 'load' })), abort.signal);
    } catch (e) {
      if (e instanceof CapstateError) throw e;
      initialError = {
        code: abort.signal.aborted ? 'cancelled' : e instanceof StepFailure ? e.code : 'navigation-failed',
        message: redaction.view().text(firstLine(e)),
      };
    }
    // BS-17: after the navigation, and around the initial artifact capture. A page left
    // paused by failed seeding (BS-32) has nothing to capture or check.
    let captures = notRequested(afterEach, 'missing');
    if (!initialError) {
      try {
        captures = await seeded(observeStep(afterEach));
      } catch (e) {
        if (!(e instanceof StepFailure)) throw e;
        initialError = { code: e.code, message: redaction.view().text(firstLine(e)) };
      }
    }
    initial = {
      status: initialError ? (abort.signal.aborted ? 'cancelled' : 'failed') : 'completed',
      ...(initialError ? { error: initialError } : {}),
      elapsed_ms: ms(t0),
      url: sanitizedUrl(page, redaction.view()),
      event_bounds: bounds(log, 1),
      completeness: completeness(captures),
      captures,
    };

    const observer = network;
    const x: ActionContext = {
      page,
      context,
      secrets,
      redaction,
      startOrigin,
      signal: abort.signal,
      ...(observer ? { redirectHop: (req, status, text, headers) => observer.redirectHop(req, status, text, headers) } : {}),
    };
    let stopped: string | null = initialError ? 'the initial navigation' : null;
    for (let i = 0; i < s.actions.length; i++) {
      const a = s.actions[i];
      if (stopped !== null) {
        // BS-35: actions after a failed or cancelled one do not run.
        const requested = [...new Set([...afterEach, ...(i === s.actions.length - 1 ? atEnd : [])])];
        steps.push({
          step_id: a.step_id,
          action: a.action,
          status: 'cancelled',
          error: { code: 'not-executed', message: `not executed: ${stopped} did not complete` },
          elapsed_ms: 0,
          url: null,
          event_bounds: { first: null, last: null },
          completeness: 'missing',
          captures: notRequested(requested, 'missing'),
        });
        continue;
      }
      stepId = a.step_id;
      onStep?.(a.step_id);
      const first = log.lastSequence + 1;
      const t = performance.now();
      let status: StepRecord['status'] = 'completed';
      let error: StepRecord['error'];
      try {
        await seeded(runAction(a, x));
      } catch (e) {
        status = abort.signal.aborted ? 'cancelled' : 'failed';
        error = { code: e instanceof StepFailure ? e.code : 'action-failed', message: redaction.view().text(firstLine(e)) };
        stopped = `step ${JSON.stringify(a.step_id)}`;
      }
      // The end of the capture is the last step that ran: at_end artifacts go there.
      const last = i === s.actions.length - 1 || status !== 'completed';
      const requested = [...new Set([...afterEach, ...(last ? atEnd : [])])];
      captures = notRequested(requested, 'missing');
      try {
        if (!abort.signal.aborted) captures = await seeded(observeStep(requested));
      } catch (e) {
        if (!(e instanceof StepFailure)) throw e;
        if (status === 'completed') {
          status = 'failed';
          error = { code: e.code, message: redaction.view().text(firstLine(e)) };
          stopped = `step ${JSON.stringify(a.step_id)}`;
        }
      }
      steps.push({
        step_id: a.step_id,
        action: a.action,
        status,
        ...(error ? { error } : {}),
        elapsed_ms: ms(t),
        url: sanitizedUrl(page, redaction.view()),
        event_bounds: bounds(log, first),
        completeness: completeness(captures),
        captures,
      });
    }
    if (network) {
      // BS-66, BS-67: in-flight requests end as unfinished; admitted reads drain before cleanup.
      await network.finish();
      if (network.incomplete) ineligible.push('network-content-incomplete');
      if (network.responseBodiesCaptured > 0) {
        limit(
          'response-body-provenance',
          'BS-64',
          "response bodies come from Playwright's Response.body(); when CDP held no body, Playwright may have re-fetched the URL with credentials, so the bytes are not verified to be the original transaction's (nor its compressed wire form)",
        );
      }
    }
  } catch (e) {
    primary = { error: e };
    throw e;
  } finally {
    outer?.removeEventListener('abort', onOuter);
    // Our seed instrumentation leaves the page before we disconnect (connect mode leaves no script behind).
    await within(commandTimeout, seeder.dispose());
    await release(session, swBlock, primary, limit);
  }
  const omissions = log.omissions();
  if (Object.keys(omissions.by_kind).length) ineligible.push('events-omitted');
  if (steps.some((st) => st.status !== 'completed') || initial.status !== 'completed') ineligible.push('steps-not-completed');
  if ([initial, ...steps].some((st) => st.completeness !== 'complete')) ineligible.push('artifacts-incomplete');

  const b = s.browser;
  return {
    schema_version: 1,
    creator: { name: 'capstate', version },
    provider: { name: 'playwright-core', version: playwrightVersion, browser_version: session.browserVersion || null },
    scenario: {
      start_url: redaction.view().text(startUrl),
      browser:
        b.mode === 'launch'
          ? { mode: 'launch', executable_path: b.executable_path, headless: b.headless ?? true }
          : { mode: 'connect', cdp_endpoint: b.cdp_endpoint },
      network_content: content,
      event_families: families,
      artifacts: { after_each_step: afterEach, at_end: atEnd },
      service_workers: s.environment?.service_workers ?? 'block',
      limits,
      // BS-11: an omitted command_timeout_ms keeps the default and stays out of the Evidence.
      ...(s.command_timeout_ms !== undefined ? { command_timeout_ms: s.command_timeout_ms } : {}),
    },
    initial_state: initial,
    steps,
    limitations,
    equality: { eligible: ineligible.length === 0, reasons: [...new Set(ineligible)] },
    omissions,
    events: log.events,
  };
}

/** A step's outcome in one line, for people: `search: failed (message)`. */
export function stepLine(s: StepRecord): string {
  return `${s.step_id}: ${s.status}${s.error ? ` (${s.error.message})` : ''}`;
}

function ms(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

function bounds(log: EventLog, first: number): { first: number | null; last: number | null } {
  return log.lastSequence >= first ? { first, last: log.lastSequence } : { first: null, last: null };
}
