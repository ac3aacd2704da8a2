/** Capture comparison (BS-72 to BS-81): the core the CLI command and the MCP tool share. */
export {
  compareWebCaptures,
  type CompareInput,
  type ComparisonResult,
  type StepResult,
  type ArtifactResult,
  type Verdict,
} from './compare.js';
export { canonicalJson, canonicalSha256 } from './canonical.js';
export {
  readPolicy,
  commitment,
  sortRules,
  DEFAULT_OPTIONS,
  BUILT_IN_RULES,
  ARTIFACT_KINDS,
  MAX_RULES,
  type CallerRule,
  type CompareOptions,
} from './policy.js';
export { summarize } from './summary.js';
