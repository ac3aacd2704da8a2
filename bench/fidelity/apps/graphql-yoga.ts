/**
 * The fidelity benchmark's graphql-yoga app: graphql-yoga 5 (graphql-yoga.server.ts) serving a
 * Relay-style schema of authors and posts from bench/fidelity/graphql-yoga/seed.json, started
 * fresh by node-server.ts; the session page at `/index.html`, GraphQL at `POST /graphql`.
 */
import type { FidelityApp } from '../harness.js';
import { isGraphqlRead, startNodeServer } from './node-server.js';

export const graphqlYoga: FidelityApp = {
  name: 'graphql-yoga',
  about:
    'graphql-yoga 5.24.1 (npm, pinned devDependency) over node:http, a Relay-style schema (authors, posts, connections with graphql-relay cursors, input-object mutations, string ids), seed.json in memory (bench/fidelity/apps/graphql-yoga.server.ts); page served as /index.html by the same server',
  readyPath: '/index.html',
  sessionPath: '/index.html',
  start: (work) => startNodeServer(graphqlYoga, work),
  isApiPath: (p) => p === '/graphql',
  isRead: isGraphqlRead,
  // Nothing varies between runs: ids are counted from the seed, no clock is read.
  mask: { fields: [] },
};
