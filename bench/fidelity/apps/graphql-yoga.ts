/**
 * The fidelity benchmark's graphql-yoga app: graphql-yoga 5 (graphql-yoga.server.ts) serving a
 * Relay-style schema of authors and posts from bench/fidelity/graphql-yoga/seed.json, started
 * fresh by node-server.ts; the session page at `/index.html`, GraphQL at `POST /graphql`.
 */
import type { FidelityApp } from '../harness.js';
import { isGraphqlRead, startNodeServer } from './node-server.js';

/** The schema the server serves (graphql-yoga.server.ts; the held-out test validates every request against it). */
export const typeDefs = /* GraphQL */ `
  type Author {
    id: ID!
    name: String!
    email: String!
    posts(first: Int, after: String): PostConnection!
  }
  type Post {
    id: ID!
    title: String!
    body: String!
    published: Boolean!
    views: Int!
    author: Author!
  }
  type PostConnection {
    edges: [PostEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }
  type PostEdge {
    cursor: String!
    node: Post!
  }
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
  type Query {
    post(id: ID!): Post
    author(id: ID!): Author
    authors: [Author!]!
    posts(first: Int, after: String, authorId: ID, published: Boolean): PostConnection!
  }
  input CreatePostInput {
    title: String!
    body: String!
    authorId: ID!
    published: Boolean
  }
  input UpdatePostInput {
    title: String
    body: String
    published: Boolean
    views: Int
  }
  type Mutation {
    createPost(input: CreatePostInput!): Post!
    updatePost(id: ID!, input: UpdatePostInput!): Post
    deletePost(id: ID!): ID
  }
`;

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
