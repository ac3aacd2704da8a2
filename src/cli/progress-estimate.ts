/**
 * How far a load is and how long it has left, across all its phases (issue 46): reading the
 * facts, inferring the manifest, the state pass. Reading is measured in bytes; the phases
 * after it in units of work (each step of the state pass, a unit per type). A 200 MB load
 * used to say "100%, 0:07 left" at the end of the reading and then ran 268 s more.
 */
import type { LoadProgress } from '../ingest/load-captures.js';
import type { StateStep } from '../state/index.js';

/**
 * Each phase's share of a load's time, from the bench's `phases_ms` (bench/README.md: at
 * 13 MB to 500 MB the reading is about half, the manifest a twentieth, the state pass the rest).
 */
const PHASE_SHARE = { facts: 0.48, manifest: 0.06, state: 0.46 } as const;

/** Each step's share of the state pass, measured on a 40 MB generated capture (bench/gen-har.ts). */
const STEP_SHARE: Record<StateStep, number> = {
  views: 0.26,
  bounds: 0.17,
  records: 0.03,
  types: 0.36,
  'write-check': 0.17,
  digest: 0.01,
};
const STEPS = Object.keys(STEP_SHARE) as StateStep[];

/** What a progress line says about a load's position in time. */
export interface Estimate {
  /** Of the whole load, 0..100; 100 only once it is done, and never less than before. */
  percent: number;
  /** Reading speed in bytes per second (during the reading), when there has been time to measure it. */
  bytesPerSecond: number | null;
  /** Time left for the whole load, all phases counted; null before there is anything to go on. */
  secondsLeft: number | null;
  /** Milliseconds since the file's load began. */
  elapsedMs: number;
}

/** The fraction of the whole load (0..1) that `p` says is done. */
export function loadFraction(p: LoadProgress): number {
  const phase = p.phase ?? 'facts';
  if (phase === 'done') return 1;
  const read = p.bytesTotal > 0 ? Math.min(1, p.bytesRead / p.bytesTotal) : 1;
  if (phase === 'facts') return PHASE_SHARE.facts * read;
  if (phase === 'manifest') return PHASE_SHARE.facts;
  return PHASE_SHARE.facts + PHASE_SHARE.manifest + PHASE_SHARE.state * stateFraction(p);
}

/** The fraction of the state pass its current step says is done. */
function stateFraction(p: LoadProgress): number {
  if (!p.step) return 0;
  const i = STEPS.indexOf(p.step.step);
  const before = STEPS.slice(0, Math.max(0, i)).reduce((s, k) => s + STEP_SHARE[k], 0);
  const within = p.step.total > 0 ? Math.min(1, p.step.done / p.step.total) : 0;
  return before + STEP_SHARE[p.step.step] * within;
}

/**
 * Follows one file's load and estimates its time left. While reading: the bytes still to
 * read at the measured rate, plus the later phases at their usual share of the reading's
 * time. After the reading: the later phases' own pace as it is measured, weighed against
 * that guess by how much of them is done (at the start the guess, near the end the pace).
 */
export class LoadEstimator {
  private percent = 0;
  private factsEndMs: number | null = null;
  private lastMs: number;
  /** Only a state is computed: a capture a killed load left pending (issue 49). */
  private stateOnly: boolean | null = null;

  constructor(private startMs: number) {
    this.lastMs = startMs;
  }

  /**
   * Other files were worked on from this one's last report until `othersEndMs` (issue 49: a
   * load reads all its files, then computes their states): that time is not this file's.
   */
  resumeAt(othersEndMs: number): void {
    this.startMs += Math.max(0, othersEndMs - this.lastMs);
  }

  observe(p: LoadProgress, nowMs: number): Estimate {
    const phase = p.phase ?? 'facts';
    this.lastMs = nowMs;
    const elapsedMs = Math.max(0, nowMs - this.startMs);
    this.stateOnly ??= phase === 'state';
    if (this.stateOnly) return this.observeState(p, elapsedMs);
    const fraction = loadFraction(p);
    // Never backwards, and 100 only when done: a state step's guessed share may run over.
    this.percent = Math.max(this.percent, phase === 'done' ? 100 : Math.min(99, Math.floor(fraction * 100)));
    const later = 1 - PHASE_SHARE.facts;
    if (phase === 'facts') {
      const measured = elapsedMs >= 200 && p.bytesRead > 0;
      const rate = measured ? p.bytesRead / (elapsedMs / 1000) : null;
      const readingSeconds = rate ? p.bytesTotal / rate : null;
      const secondsLeft =
        rate && readingSeconds ? (p.bytesTotal - p.bytesRead) / rate + (readingSeconds * later) / PHASE_SHARE.facts : null;
      return { percent: this.percent, bytesPerSecond: rate, secondsLeft, elapsedMs };
    }
    this.factsEndMs ??= elapsedMs;
    if (phase === 'done') return { percent: 100, bytesPerSecond: null, secondsLeft: 0, elapsedMs };
    const guess = (this.factsEndMs / 1000) * (later / PHASE_SHARE.facts);
    const done = Math.max(0, Math.min(1, (fraction - PHASE_SHARE.facts) / later));
    const spent = (elapsedMs - this.factsEndMs) / 1000;
    // The pace so far, trusted fully once a sixth or so of the later phases is done; before
    // that the guess, less the time already spent (or, past the guess, the remaining share at the time spent).
    const byPace = done > 0 ? (spent * (1 - done)) / done : 0;
    const byGuess = Math.max(guess - spent, (1 - done) * spent);
    const trust = Math.min(1, done / 0.15);
    const secondsLeft = trust * byPace + (1 - trust) * byGuess;
    return { percent: this.percent, bytesPerSecond: null, secondsLeft: Number.isFinite(secondsLeft) ? secondsLeft : null, elapsedMs };
  }

  /** A state computed alone: its steps are the whole; the time left is their pace, once there is one. */
  private observeState(p: LoadProgress, elapsedMs: number): Estimate {
    const phase = p.phase ?? 'facts';
    if (phase === 'done') return { percent: 100, bytesPerSecond: null, secondsLeft: 0, elapsedMs };
    const done = stateFraction(p);
    this.percent = Math.max(this.percent, Math.min(99, Math.floor(done * 100)));
    const secondsLeft = done > 0 ? ((elapsedMs / 1000) * (1 - done)) / done : null;
    return { percent: this.percent, bytesPerSecond: null, secondsLeft, elapsedMs };
  }
}
