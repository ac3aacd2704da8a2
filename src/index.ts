/**
 * capstate as a library (issue 19): the package's one entry point, `import … from 'capstate'`.
 * Open a store, load captures into it, read a capture's environment state, and serve it
 * (MCP server object or plain HTTP). Everything here is re-exported from the modules that
 * implement it; anything not exported here is internal and may change.
 */
export { CapstateError, type ErrorContext } from './errors.js';
export { capstateVersion, openStore, kyselyFor, type OpenOptions, type Sqlite } from './store/open.js';
export type { DB } from './store/types.js';
export { runReadOnlySql, type ReadOnlySqlOptions, type SqlResult } from './store/read-only-sql.js';
export { loadCaptures, type LoadOptions, type LoadedCapture, type LoadProgress } from './ingest/load-captures.js';
export { listCaptureIds, pickCapture, readManifest } from './manifest/read.js';
export { readStoredState, writeStoredStateDocument } from './model/plan/stored.js';
export type { EnvironmentState } from './state/index.js';
export { openServeContext, closeServeContext, type ServeContext } from './model/served/context.js';
export { createServer, callTool, type CapstateServer } from './mcp/server.js';
export { listenHttp, httpHandler } from './http/server.js';
export { httpGuard, type HttpGuard } from './http/guard.js';
export { captureBrowserScenario, type CaptureOptions, type Evidence } from './browser/index.js';
export { compareWebCaptures, type CompareInput, type ComparisonResult } from './compare/index.js';
