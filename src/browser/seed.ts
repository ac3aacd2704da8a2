/**
 * Storage seeds (BS-30): cookies before the initial navigation; local- and
 * session-storage entries by a script that runs before the first document scripts of
 * the page and its frames, once per origin. After a document of an origin commits, that
 * origin's seeds are withdrawn, so the application's own updates, deletions and nulls
 * persist across later navigations.
 */
import type { BrowserContext, Frame, Page } from 'playwright-core';
import type { Scenario, ValueSource } from './schema.js';

type Entries = Record<string, [string, string][]>;

export function resolveValue(v: ValueSource, secrets: Map<string, string>): string {
  return v.source === 'literal' ? v.value : secrets.get(v.secret_id)!;
}

export class StorageSeeder {
  private readonly local: Entries = {};
  private readonly session: Entries = {};
  private script: { dispose(): Promise<void> | void } | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly s: Scenario, private readonly secrets: Map<string, string>) {
    for (const o of s.storage?.local_storage ?? []) this.local[o.origin] = o.entries.map((e) => [e.key, resolveValue(e.value, secrets)]);
    for (const o of s.storage?.session_storage ?? []) this.session[o.origin] = o.entries.map((e) => [e.key, resolveValue(e.value, secrets)]);
  }

  get hasNonCookieSeeds(): boolean {
    return (this.s.storage?.local_storage?.length ?? 0) + (this.s.storage?.session_storage?.length ?? 0) > 0;
  }

  /** Cookies first, then the seed script; both before the initial navigation. */
  async install(context: BrowserContext, page: Page): Promise<void> {
    const cookies = (this.s.storage?.cookies ?? []).map((c) => ({ name: c.name, value: resolveValue(c.value, this.secrets), url: c.url }));
    if (cookies.length) await context.addCookies(cookies);
    if (!this.hasNonCookieSeeds) return;
    await this.register(page);
    page.on('framenavigated', (f: Frame) => {
      let origin: string;
      try { origin = new URL(f.url()).origin; } catch { return; }
      if (!(origin in this.local) && !(origin in this.session)) return;
      delete this.local[origin];
      delete this.session[origin];
      this.chain = this.chain.then(() => this.register(page)).catch(() => {});
    });
  }

  private async register(page: Page): Promise<void> {
    if (this.script) await this.script.dispose();
    this.script = null;
    if (Object.keys(this.local).length + Object.keys(this.session).length === 0) return;
    const data = JSON.stringify({ local: this.local, session: this.session });
    this.script = await page.addInitScript({
      content: `(() => { const d = ${data}; let o; try { o = location.origin; } catch { return; }
        const put = (area, entries) => { if (!entries) return; try { const s = area(); for (const [k, v] of entries) s.setItem(k, v); } catch {} };
        put(() => localStorage, d.local[o]); put(() => sessionStorage, d.session[o]); })();`,
    });
  }

  /** Waits until seeds consumed by earlier navigations are withdrawn. */
  settled(): Promise<void> {
    return this.chain;
  }
}
