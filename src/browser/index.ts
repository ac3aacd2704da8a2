/** Browser scenario capture (BS-1 to BS-71): the core the CLI command and the MCP tool share. */
export { captureBrowserScenario, stepLine, type CaptureOptions, type Evidence, type StepRecord, type Limitation } from './capture.js';
export { validateScenario, DEFAULT_LIMITS, DEFAULT_COMMAND_TIMEOUT_MS, type Scenario, type Action, type Limits } from './schema.js';
export { fingerprintString, FINGERPRINT_VERSION } from './fingerprints.js';
