/**
 * The browser session around a capture's steps, beside acquiring it (launch.ts): connect
 * mode's environment applied before the first navigation (BS-25), and the release at the end,
 * the service-worker block restored before the browser is disconnected or closed (BS-17,
 * BS-18). Apart from capture.ts (issue 43), which calls both.
 */
import type { Page } from 'playwright-core';
import { CapstateError } from '../errors.js';
import { withDeadline } from './deadline.js';
import { firstLine, type BrowserSession } from './launch.js';
import type { Scenario } from './schema.js';
import { keepPrimary, type ServiceWorkerBlock } from './service-workers.js';

/** BS-25 in connect mode: Intl formatting (and the timezone) through CDP emulation only. */
export async function applyConnectEnvironment(s: Scenario, page: Page, timeout: number): Promise<void> {
  const env = s.environment ?? {};
  if (!env.locale && !env.timezone && !env.viewport) return;
  const cdp = await page.context().newCDPSession(page);
  const bounded = <T>(p: Promise<T>) =>
    withDeadline(
      p,
      timeout,
      () =>
        new CapstateError('command-timeout', `an environment command exceeded command_timeout_ms ${timeout}`, {
          path: 'command_timeout_ms',
        }),
    );
  if (env.locale) await bounded(cdp.send('Emulation.setLocaleOverride', { locale: env.locale }));
  if (env.timezone) await bounded(cdp.send('Emulation.setTimezoneOverride', { timezoneId: env.timezone }));
  if (env.viewport) await bounded(page.setViewportSize(env.viewport));
}

/**
 * BS-17, BS-18: restore the service-worker block, then disconnect (or close what launch
 * owns). After a failure the primary error stays the error; cleanup failures become its
 * `details.diagnostics.cleanup`. After a success, an unfinished restore is a limitation.
 */
export async function release(
  session: BrowserSession,
  swBlock: ServiceWorkerBlock | null,
  primary: { error: unknown } | null,
  limit: (code: string, rule: string, message: string) => void,
): Promise<void> {
  const failures: { step: string; message: string }[] = [];
  const uncertain = swBlock ? await swBlock.release() : null;
  if (uncertain) failures.push({ step: 'service-worker-restore', message: uncertain });
  try {
    await session.cleanup();
  } catch (e) {
    if (!primary) throw e;
    failures.push({ step: 'browser-cleanup', message: firstLine(e) });
  }
  if (primary) return keepPrimary(primary.error, failures);
  if (uncertain)
    limit(
      'service-worker-restore',
      'BS-18',
      `${uncertain}; register() may still reject in frames of the connected page until they navigate`,
    );
}
