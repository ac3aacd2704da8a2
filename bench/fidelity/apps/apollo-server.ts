/**
 * The fidelity benchmark's apollo-server app: @apollo/server 5 (apollo-server.server.ts)
 * serving a plain schema of books and authors from bench/fidelity/apollo-server/seed.json,
 * started fresh by node-server.ts; the session page at `/index.html`, GraphQL at `POST /graphql`.
 */
import type { FidelityApp } from '../harness.js';
import { isGraphqlRead, startNodeServer } from './node-server.js';

/** The schema the server serves (apollo-server.server.ts; the held-out test validates every request against it). */
export const typeDefs = /* GraphQL */ `
  type Author {
    id: Int!
    name: String!
  }
  type Book {
    id: Int!
    title: String!
    genre: String!
    year: Int!
    author: Author!
  }
  type Query {
    book(id: Int!): Book
    books(limit: Int, offset: Int, authorId: Int, genre: String): [Book!]!
    authors: [Author!]!
    bookCount(genre: String): Int!
  }
  type Mutation {
    addBook(title: String!, genre: String!, year: Int!, authorId: Int!): Book!
    updateBook(id: Int!, title: String, genre: String, year: Int): Book
    removeBook(id: Int!): Boolean!
  }
`;

export const apolloServer: FidelityApp = {
  name: 'apollo-server',
  about:
    '@apollo/server 5.5.1 (npm, pinned devDependency) through executeHTTPGraphQLRequest on node:http, books and authors with Int ids, limit/offset lists, scalar-argument mutations, NOT_FOUND errors, no stack traces (bench/fidelity/apps/apollo-server.server.ts); page served as /index.html by the same server',
  readyPath: '/index.html',
  sessionPath: '/index.html',
  start: (work) => startNodeServer(apolloServer, work),
  isApiPath: (p) => p === '/graphql',
  isRead: isGraphqlRead,
  // Nothing varies between runs: ids are counted from the seed, no clock is read, no stack traces.
  mask: { fields: [] },
};
