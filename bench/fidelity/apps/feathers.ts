/**
 * The fidelity benchmark's Feathers app: Feathers 5 over Express (feathers.server.ts), users,
 * messages and tags in memory from bench/fidelity/feathers/seed.json, started fresh by
 * node-server.ts; the session page at `/index.html`. An app style none of the others has:
 * `$limit`/`$skip`/`$sort[field]` queries and a `{total, limit, skip, data}` page envelope.
 */
import type { FidelityApp } from '../harness.js';
import { startNodeServer } from './node-server.js';

export const feathersApp: FidelityApp = {
  name: 'feathers',
  about:
    'Feathers 5.0.50 (npm, pinned devDependencies) over Express: in-memory services users and messages paginated ({total, limit, skip, data}), tags unpaginated, query values coerced to the field types as a generated app does, seed.json in memory (bench/fidelity/apps/feathers.server.ts); page served as /index.html by the same server',
  readyPath: '/index.html',
  sessionPath: '/index.html',
  start: (work) => startNodeServer(feathersApp, work),
  isApiPath: (p) => /^\/(users|messages|tags)(\/|$)/.test(p),
  // Nothing varies between runs: ids are counted from the seed, no clock is read.
  mask: { fields: [] },
};
