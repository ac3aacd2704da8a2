/**
 * Storage seeds (BS-30 to BS-33). Cookies are written before the initial navigation.
 * Local- and session-storage entries are written by debugger instrumentation (BS-31): a
 * private-world script registered for every new document of the page and of its
 * out-of-process frames stops at a `debugger` statement before the document's own
 * scripts run; while it is paused, capstate resolves the security origin of that exact
 * frame (BS-32), chooses the seeds still owed to that origin's storage partition (local)
 * or top-level browsing context (session), writes them in that frame and resumes. Each
 * area is seeded once, so the application's updates, deletions and nulls persist across
 * later navigations. Pauses anywhere else (page breakpoints, `debugger` statements) are
 * left to whichever debugger client owns them.
 */
import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { withDeadline } from './deadline.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, type Scenario, type ValueSource } from './schema.js';

type Entries = Record<string, [string, string][]>;

export function resolveValue(v: ValueSource, secrets: Map<string, string>): string {
  return v.source === 'literal' ? v.value : secrets.get(v.secret_id)!;
}

/** The part of a CDP session the instrumentation uses; a page session or a child target's. */
export interface CdpChannel {
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  on(event: string, handler: (params: any) => void): void;
}

/**
 * A child target (an out-of-process frame) reached through its parent's session with
 * `Target.sendMessageToTarget`: Playwright's public CDP sessions cannot address flattened
 * child sessions, and the child must be instrumented before it runs its first script.
 */
export class ChildChannel implements CdpChannel {
  private next = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly handlers = new Map<string, ((p: any) => void)[]>();
  /** The frame's target went away (its document ran nothing more). */
  detached = false;

  constructor(
    private readonly parent: CdpChannel,
    readonly sessionId: string,
  ) {
    routesOf(parent).set(sessionId, this);
  }

  /** A message from the child, routed here by its parent's one listener. */
  receive(message: string): void {
    const m = JSON.parse(message) as { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string } };
    if (m.id !== undefined) {
      const q = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) q?.reject(new Error(m.error.message));
      else q?.resolve(m.result);
    } else if (m.method) {
      for (const h of this.handlers.get(m.method) ?? []) h(m.params);
    }
  }

  detach(): void {
    this.detached = true;
    for (const q of this.pending.values()) q.reject(new Error("the frame's target detached"));
    this.pending.clear();
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.parent
        .send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) })
        .catch((e: Error) => {
          this.pending.delete(id);
          reject(e);
        });
    });
  }

  on(event: string, handler: (p: any) => void): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
  }
}

/**
 * One listener pair per parent session routes child messages by session id (a listener
 * per child would pile up on the parent over a long capture's frames).
 */
const routes = new WeakMap<CdpChannel, Map<string, ChildChannel>>();
function routesOf(parent: CdpChannel): Map<string, ChildChannel> {
  let m = routes.get(parent);
  if (m) return m;
  const children = new Map<string, ChildChannel>();
  parent.on('Target.receivedMessageFromTarget', (p: { sessionId: string; message: string }) =>
    children.get(p.sessionId)?.receive(p.message),
  );
  parent.on('Target.detachedFromTarget', (p: { sessionId: string }) => {
    children.get(p.sessionId)?.detach();
    children.delete(p.sessionId);
  });
  routes.set(parent, children);
  m = children;
  return m;
}

interface SeedScript {
  contextId: number;
  frameId: string;
}

/** Runs in the paused seed world: writes the owed entries; storage the document may not use is skipped. */
const SEED_WRITER = `function (d) {
  const put = (area, entries) => { if (!entries.length) return 'ok';
    let s; try { s = area(); } catch (e) { return 'denied'; } for (const [k, v] of entries) s.setItem(k, v); return 'ok'; };
  return [put(() => localStorage, d.local), put(() => sessionStorage, d.session)];
}`;

/** The debugger instrumentation of BS-31/BS-32, independent of Playwright for testing. */
export class SeedInstrumentation {
  /**
   * Local-storage seeds are owed per storage partition; session-storage seeds per
   * session-storage area of the page: its origin's, or a partitioned frame's (same key).
   */
  private readonly seededPartitions = new Set<string>();
  private readonly seededSessionAreas = new Set<string>();
  private readonly channels: { channel: CdpChannel; scriptId?: string }[] = [];
  private failure: string | null = null;
  private onFailure: ((message: string) => void)[] = [];
  readonly world = `capstate-seed-${randomBytes(8).toString('hex')}`;

  constructor(
    private readonly local: Entries,
    private readonly session: Entries,
    private readonly commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  ) {}

  /** BS-11: storage CDP commands, replies from child targets included, are bounded by command_timeout_ms. */
  private send(channel: CdpChannel, method: string, params?: Record<string, unknown>): Promise<any> {
    return withDeadline(
      channel.send(method, params),
      this.commandTimeoutMs,
      () => new Error(`no answer to ${method} within command_timeout_ms ${this.commandTimeoutMs}`),
    );
  }

  /** Why initialization failed (BS-32), or null. */
  get failed(): string | null {
    return this.failure;
  }

  whenFailed(f: (message: string) => void): void {
    if (this.failure !== null) f(this.failure);
    else this.onFailure.push(f);
  }

  /** Instruments one target's session; resolves once its future documents are covered. */
  async attach(channel: CdpChannel): Promise<void> {
    const contexts = new Map<number, { origin: string; frameId?: string }>();
    const scripts = new Map<string, SeedScript>();
    const url = `${this.world}.js`;
    channel.on('Runtime.executionContextCreated', (p: { context: { id: number; origin: string; auxData?: { frameId?: string } } }) => {
      contexts.set(p.context.id, { origin: p.context.origin, frameId: p.context.auxData?.frameId });
    });
    channel.on('Runtime.executionContextDestroyed', (p: { executionContextId: number }) => contexts.delete(p.executionContextId));
    channel.on(
      'Debugger.scriptParsed',
      (p: { scriptId: string; url: string; executionContextId: number; executionContextAuxData?: { frameId?: string } }) => {
        if (p.url === url) scripts.set(p.scriptId, { contextId: p.executionContextId, frameId: p.executionContextAuxData?.frameId ?? '' });
      },
    );
    channel.on('Debugger.paused', (p: { callFrames: { callFrameId: string; location: { scriptId: string } }[] }) => {
      const top = p.callFrames[0];
      const own = top && scripts.get(top.location.scriptId);
      // BS-31: only our own pause is ours to resume.
      if (!own) return;
      void this.seed(channel, own, contexts.get(own.contextId));
    });
    channel.on('Target.attachedToTarget', (p: { sessionId: string; targetInfo: { type: string }; waitingForDebugger: boolean }) => {
      void this.child(channel, p);
    });
    const entry: { channel: CdpChannel; scriptId?: string } = { channel };
    this.channels.push(entry);
    await Promise.all([this.send(channel, 'Runtime.enable'), this.send(channel, 'Debugger.enable'), this.send(channel, 'Page.enable')]);
    // Every script but ours is blackboxed for this session: a page `debugger` statement (or
    // an anti-debugging loop) then pauses only when another connected client, one that does
    // not blackbox it, asks for it — and that client resumes it (BS-31). Without one, the
    // page runs as if no debugger were attached.
    await this.send(channel, 'Debugger.setBlackboxPatterns', { patterns: [`^(?!${this.world}\\.js$)`], skipAnonymous: true });
    const added = (await this.send(channel, 'Page.addScriptToEvaluateOnNewDocument', {
      source: `(function () { debugger; })();\n//# sourceURL=${url}`,
      worldName: this.world,
    })) as { identifier: string };
    entry.scriptId = added.identifier;
    // Out-of-process frames wait for us before their first script (BS-30 "instrumented frames").
    await this.send(channel, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  }

  private async child(
    parent: CdpChannel,
    p: { sessionId: string; targetInfo: { type: string }; waitingForDebugger: boolean },
  ): Promise<void> {
    const channel = new ChildChannel(parent, p.sessionId);
    try {
      if (p.targetInfo.type === 'iframe') await this.attach(channel);
    } catch (e) {
      // A frame that went away while we set it up ran nothing; any other failure is fatal,
      // and the frame stays waiting: BS-32, never run from an unknown initial state.
      if (!/detached|closed|not found/i.test(String((e as Error).message))) {
        this.fail(`an out-of-process frame could not be instrumented: ${(e as Error).message}`);
        return;
      }
    }
    if (p.waitingForDebugger) await channel.send('Runtime.runIfWaitingForDebugger').catch(() => {});
    if (p.targetInfo.type !== 'iframe') await parent.send('Target.detachFromTarget', { sessionId: p.sessionId }).catch(() => {});
  }

  private async seed(channel: CdpChannel, own: SeedScript, context: { origin: string; frameId?: string } | undefined): Promise<void> {
    let partition: string | null = null;
    let origin = '';
    let sessionArea = '';
    let writeSession = false;
    try {
      origin = await this.originOf(channel, own, context);
      const local = this.local[origin];
      const session = this.session[origin];
      // BS-30: partitioned frames of one origin get their own seeds. A partitioned frame's
      // session storage is an area of its own too (Chromium keys it by the same storage
      // key), so it is owed the origin's session seeds as well.
      const key =
        local || session
          ? await this.send(channel, 'Storage.getStorageKeyForFrame', { frameId: own.frameId }).then(
              (r: { storageKey: string }) => r.storageKey,
              () => origin,
            )
          : origin;
      if (local && !this.seededPartitions.has(key)) partition = key;
      sessionArea = key;
      writeSession = session !== undefined && !this.seededSessionAreas.has(sessionArea);
      if (partition !== null || writeSession) {
        if (partition !== null) this.seededPartitions.add(partition);
        if (writeSession) this.seededSessionAreas.add(sessionArea);
        // The entries travel as a call argument, not as source: another debugger client on
        // the page (connect mode) sees the function's parsed source, never the values.
        const r = (await this.send(channel, 'Runtime.callFunctionOn', {
          executionContextId: own.contextId,
          silent: true,
          returnByValue: true,
          arguments: [{ value: { local: partition !== null ? local : [], session: writeSession ? session : [] } }],
          functionDeclaration: SEED_WRITER,
        })) as { result?: { value?: unknown }; exceptionDetails?: { exception?: { description?: string }; text: string } };
        // Storage the document itself may not use (third-party blocking) needs no seeds;
        // a write that throws otherwise leaves an unknown initial state.
        if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text);
      }
    } catch (e) {
      if (channel instanceof ChildChannel && channel.detached) {
        // A frame removed while paused ran nothing: its area is still owed its seeds.
        if (partition !== null) this.seededPartitions.delete(partition);
        if (writeSession) this.seededSessionAreas.delete(sessionArea);
        return;
      }
      // BS-32: never run the page from an unknown initial state; it stays paused.
      this.fail((e as Error).message);
      return;
    }
    await channel.send('Debugger.resume').catch(() => {});
  }

  /** BS-32: the isolated world's origin, else the security origin of that exact frame. */
  private async originOf(channel: CdpChannel, own: SeedScript, context: { origin: string; frameId?: string } | undefined): Promise<string> {
    if (context?.origin) return context.origin;
    if (!own.frameId) throw new Error("the seed script's frame could not be identified");
    const { frameTree } = (await this.send(channel, 'Page.getFrameTree')) as { frameTree: FrameTree };
    const find = (t: FrameTree): FrameTree['frame'] | undefined =>
      t.frame.id === own.frameId ? t.frame : (t.childFrames ?? []).map(find).find(Boolean);
    const origin = find(frameTree)?.securityOrigin;
    if (!origin) throw new Error(`the security origin of frame ${own.frameId} could not be resolved`);
    return origin;
  }

  private fail(message: string): void {
    if (this.failure !== null) return;
    this.failure = `storage seeding failed: ${message}`;
    for (const f of this.onFailure) f(this.failure);
    this.onFailure = [];
  }

  /** Removes the scripts capstate added and stops instrumenting (connect mode leaves no trace). */
  async dispose(): Promise<void> {
    await Promise.all(
      this.channels.map(async ({ channel, scriptId }) => {
        if (scriptId) await channel.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: scriptId }).catch(() => {});
        await channel.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: false }).catch(() => {});
        await channel.send('Debugger.disable').catch(() => {});
      }),
    );
  }
}

interface FrameTree {
  frame: { id: string; securityOrigin?: string };
  childFrames?: FrameTree[];
}

export class StorageSeeder {
  private readonly local: Entries = {};
  private readonly session: Entries = {};
  private instrumentation: SeedInstrumentation | null = null;

  constructor(
    private readonly s: Scenario,
    private readonly secrets: Map<string, string>,
  ) {
    for (const o of s.storage?.local_storage ?? []) this.local[o.origin] = o.entries.map((e) => [e.key, resolveValue(e.value, secrets)]);
    for (const o of s.storage?.session_storage ?? [])
      this.session[o.origin] = o.entries.map((e) => [e.key, resolveValue(e.value, secrets)]);
  }

  get hasNonCookieSeeds(): boolean {
    return (this.s.storage?.local_storage?.length ?? 0) + (this.s.storage?.session_storage?.length ?? 0) > 0;
  }

  /** Cookies first, then the instrumentation; both before the initial navigation. */
  async install(context: BrowserContext, page: Page): Promise<void> {
    const cookies = (this.s.storage?.cookies ?? []).map((c) => ({ name: c.name, value: resolveValue(c.value, this.secrets), url: c.url }));
    if (cookies.length) await context.addCookies(cookies);
    // Without non-cookie seeds the debugger stays off, so page `debugger` statements are inert.
    if (!this.hasNonCookieSeeds) return;
    this.instrumentation = new SeedInstrumentation(this.local, this.session, this.s.command_timeout_ms ?? DEFAULT_COMMAND_TIMEOUT_MS);
    await this.instrumentation.attach(await context.newCDPSession(page));
  }

  /** A promise that rejects when initialization fails (BS-32); never resolves otherwise. */
  failure(): Promise<never> {
    return new Promise((_, reject) => this.instrumentation?.whenFailed((m) => reject(new Error(m))));
  }

  get failed(): string | null {
    return this.instrumentation?.failed ?? null;
  }

  async dispose(): Promise<void> {
    await this.instrumentation?.dispose();
  }
}
