/**
 * What an MCP caller may make the server do with a browser and with files. The server is
 * meant for agents that read an untrusted catalog, so a (possibly prompt-injected) caller
 * chooses nothing the operator did not choose at start-up: not the program that runs, not
 * which of the server's environment variables a scenario may read, not which files a
 * comparison opens. The CLI commands are the operator's own and keep their full inputs.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CapstateError } from '../errors.js';

/** Evidence files compare_web_captures reads over MCP are at most this large. */
export const MAX_EVIDENCE_FILE_BYTES = 64 * 1024 * 1024;

export const DEFAULT_BROWSER_EXECUTABLE = '/usr/bin/chromium';

export interface BrowserPolicy {
  /** `capture_browser_scenario` is listed and answered only when the operator allowed it (`serve --allow-browser`). */
  allowBrowser: boolean;
  /** Launch mode starts this executable and no other (`--browser PATH`). */
  executablePath: string;
  /** Connect mode attaches only to this endpoint (`--browser-cdp URL`); null: connect mode is refused. */
  cdpEndpoint: string | null;
  /** The environment variables a scenario may declare as secrets (`--secret-env NAME`). */
  secretEnv: readonly string[];
  /** compare_web_captures opens Evidence files only under this directory (`--evidence-dir DIR`); null: inline Evidence only. */
  evidenceDir: string | null;
  maxEvidenceBytes: number;
}

/** The default: no browser, no secrets, no files. */
export const CLOSED_BROWSER_POLICY: BrowserPolicy = {
  allowBrowser: false,
  executablePath: DEFAULT_BROWSER_EXECUTABLE,
  cdpEndpoint: null,
  secretEnv: [],
  evidenceDir: null,
  maxEvidenceBytes: MAX_EVIDENCE_FILE_BYTES,
};

function refuse(code: string, message: string, path: string): CapstateError {
  return new CapstateError(code, `capture_browser_scenario: ${message}`, { tool: 'capture_browser_scenario', path });
}

/**
 * The scenario a caller sent, with the operator's browser put in: the executable (or
 * endpoint) is the configured one, and every declared secret names an allowed variable.
 * Refusals say what to change without telling whether a variable is set.
 */
export function applyBrowserPolicy(policy: BrowserPolicy, scenario: Record<string, unknown>): Record<string, unknown> {
  if (!policy.allowBrowser) {
    throw new CapstateError(
      'browser-not-allowed',
      'capture_browser_scenario is off on this server; the operator can start it with `capstate serve --allow-browser`',
      { tool: 'capture_browser_scenario' },
    );
  }
  const browser = scenario.browser;
  if (browser === null || typeof browser !== 'object' || Array.isArray(browser)) return scenario; // the validator names the error
  const b = { ...(browser as Record<string, unknown>) };
  if (b.mode === 'launch') {
    if (b.executable_path !== undefined && b.executable_path !== policy.executablePath) {
      throw refuse(
        'browser-not-allowed',
        'this server launches only the browser it was started with; leave browser.executable_path out',
        'browser.executable_path',
      );
    }
    b.executable_path = policy.executablePath;
  } else if (b.mode === 'connect') {
    if (policy.cdpEndpoint === null) {
      throw refuse(
        'browser-not-allowed',
        'this server does not attach to a running browser (the operator can allow one endpoint with `--browser-cdp URL`); use {"mode": "launch"}',
        'browser.mode',
      );
    }
    if (b.cdp_endpoint !== undefined && b.cdp_endpoint !== policy.cdpEndpoint) {
      throw refuse(
        'browser-not-allowed',
        'this server attaches only to the endpoint it was started with; leave browser.cdp_endpoint out',
        'browser.cdp_endpoint',
      );
    }
    b.cdp_endpoint = policy.cdpEndpoint;
  }
  const secrets = scenario.secrets;
  if (Array.isArray(secrets)) {
    secrets.forEach((s, i) => {
      const name = s && typeof s === 'object' ? (s as Record<string, unknown>).environment_variable : undefined;
      if (typeof name === 'string' && !policy.secretEnv.includes(name)) {
        throw refuse(
          'secret-not-allowed',
          `secrets[${i}] names an environment variable this server does not give out; ` +
            `the operator lists the ones a scenario may use with \`--secret-env NAME\`${policy.secretEnv.length ? ` (allowed: ${policy.secretEnv.join(', ')})` : ' (none is allowed now)'}`,
          `secrets[${i}].environment_variable`,
        );
      }
    });
  }
  return { ...scenario, browser: b };
}

/** The only environment a scenario served over MCP can read secrets from: the allowed names. */
export function allowedSecretEnv(policy: BrowserPolicy, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of policy.secretEnv) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/**
 * An Evidence path a caller gave compare_web_captures, resolved under the evidence
 * directory (symbolic links followed, so none leads out). Outside it the answer is the
 * same whether or not the file exists, so a caller learns nothing about the machine.
 */
export function evidencePath(policy: BrowserPolicy, side: 'before' | 'after', given: string): string {
  const context = { tool: 'compare_web_captures', argument: side };
  if (policy.evidenceDir === null) {
    throw new CapstateError(
      'evidence-path-refused',
      `compare_web_captures: ${side}: this server opens no Evidence files; pass the Evidence object itself ` +
        '(as capture_browser_scenario returns it), or the operator can allow files under one directory with `capstate serve --evidence-dir DIR`',
      context,
    );
  }
  const outside = () =>
    new CapstateError(
      'evidence-path-refused',
      `compare_web_captures: ${side}: not an Evidence file under this server's evidence directory; give a path relative to it, or the Evidence object itself`,
      context,
    );
  let root: string;
  try {
    root = realpathSync(policy.evidenceDir);
  } catch {
    throw outside();
  }
  const candidate = isAbsolute(given) ? given : join(root, given);
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    // A missing file inside the directory may be named; outside it, nothing is said.
    const rel = relative(root, candidate);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) {
      throw new CapstateError(
        'no-such-file',
        `compare_web_captures: ${side}: no Evidence file ${JSON.stringify(rel)} in the evidence directory`,
        context,
      );
    }
    throw outside();
  }
  if (real !== root && !real.startsWith(root + sep)) throw outside();
  const st = statSync(real);
  if (!st.isFile()) throw outside();
  if (st.size > policy.maxEvidenceBytes) {
    throw new CapstateError(
      'evidence-too-large',
      `compare_web_captures: ${side}: the Evidence file has ${st.size} bytes, more than the ${policy.maxEvidenceBytes} this server reads`,
      context,
    );
  }
  return real;
}
