/**
 * The Evidence a browser scenario capture returns (docs/evidence-format.md): its steps, the
 * limitations it states, whether it is eligible for equality, and its events. Apart from
 * capture.ts (issue 43), which fills it in and re-exports these types.
 */
import type { Captures } from './artifacts.js';
import type { EvidenceEvent, Omissions } from './limits.js';
import type { Action, Artifact, EventFamily, Limits } from './schema.js';

export interface Limitation {
  code: string;
  rule: string;
  message: string;
}

export interface StepRecord {
  step_id: string;
  action: Action['action'];
  status: 'completed' | 'failed' | 'cancelled';
  error?: { code: string; message: string };
  elapsed_ms: number;
  url: string | null;
  event_bounds: { first: number | null; last: number | null };
  completeness: 'complete' | 'partial' | 'missing';
  captures: Captures;
}

export interface Evidence {
  schema_version: 1;
  creator: { name: 'capstate'; version: string };
  provider: { name: 'playwright-core'; version: string; browser_version: string | null };
  scenario: {
    start_url: string;
    browser: { mode: 'launch'; executable_path: string; headless: boolean } | { mode: 'connect'; cdp_endpoint: string };
    network_content: { request_body: boolean; response_body: boolean; header_values: boolean };
    event_families: EventFamily[];
    artifacts: { after_each_step: Artifact[]; at_end: Artifact[] };
    service_workers: 'block' | 'allow';
    limits: Limits;
    command_timeout_ms?: number;
  };
  initial_state: Omit<StepRecord, 'step_id' | 'action'> & { status: 'completed' | 'failed' | 'cancelled' };
  steps: StepRecord[];
  limitations: Limitation[];
  equality: { eligible: boolean; reasons: string[] };
  omissions: Omissions;
  events: EvidenceEvent[];
}
