/**
 * The fidelity benchmark's two GraphQL apps (bench/fidelity/apps/graphql-yoga.ts,
 * apollo-server.ts): every held-out request and every request of the recorded session is a
 * `POST /graphql` whose JSON body names a query the app's own schema accepts (graphql's parse
 * and validate), writes are mutations and nothing else is, the held-out kinds are the issue's,
 * and the truth answers every held-out id. No app is started: the files are read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, type DocumentNode, Kind, type OperationDefinitionNode, parse, validate, visit } from 'graphql';
import { describe, expect, it } from 'vitest';
import { typeDefs as apolloTypeDefs } from '../bench/fidelity/apps/apollo-server.js';
import { typeDefs as yogaTypeDefs } from '../bench/fidelity/apps/graphql-yoga.js';
import { APPS, appDir, captureRequests, heldOut, type Req } from '../bench/fidelity/harness.js';

const KINDS = [
  'unread-item',
  'not-found',
  'page',
  'filter',
  'selection',
  'unrecorded-operation',
  'after-write',
  'write',
  'read-after-write',
];

interface Body {
  query: string;
  variables?: unknown;
  operationName?: string | null;
}

/** The request's body, its parsed document and the operation it runs; throws where any is missing. */
function operationOf(r: Req): { body: Body; doc: DocumentNode; op: OperationDefinitionNode } {
  expect(r.method).toBe('POST');
  expect(r.path).toBe('/graphql');
  expect(r.content_type).toBe('application/json');
  const body = JSON.parse(r.body ?? '') as Body;
  expect(typeof body.query).toBe('string');
  expect(body.variables === undefined || (typeof body.variables === 'object' && !Array.isArray(body.variables))).toBe(true);
  const doc = parse(body.query);
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = body.operationName ? ops.find((o) => o.name?.value === body.operationName) : ops.length === 1 ? ops[0] : undefined;
  if (!op) throw new Error(`no operation ${body.operationName ?? '(anonymous)'} in ${body.query}`);
  return { body, doc, op };
}

for (const [name, typeDefs] of [
  ['graphql-yoga', yogaTypeDefs],
  ['apollo-server', apolloTypeDefs],
] as const) {
  describe(`fidelity app ${name}`, () => {
    const app = APPS.find((a) => a.name === name);
    const schema = buildSchema(typeDefs);
    const errorsOf = (doc: DocumentNode) => validate(schema, doc).map((e) => e.message);

    it('is registered, with POST /graphql as its only API path', () => {
      expect(app).toBeDefined();
      expect(app!.isApiPath?.('/graphql')).toBe(true);
      expect(app!.isApiPath?.('/index.html')).toBe(false);
      expect(app!.sessionPath).toBe('/index.html');
    });

    it('heldout.json: valid operations of the schema, writes exactly the mutations, the issue kinds', () => {
      const held = heldOut(app!);
      expect(held.length).toBeGreaterThanOrEqual(25);
      expect(new Set(held.map((r) => r.id)).size).toBe(held.length);
      expect([...new Set(held.map((r) => r.kind))].sort()).toEqual([...KINDS].sort());
      for (const r of held) {
        const { doc, op } = operationOf(r);
        expect({ id: r.id, errors: errorsOf(doc) }).toEqual({ id: r.id, errors: [] });
        expect({ id: r.id, mutation: op.operation === 'mutation' }).toEqual({ id: r.id, mutation: r.kind === 'write' });
      }
    });

    it('the recorded session: valid operations, one anonymous at least, all three writes, __typename in every object selection', () => {
      const session = captureRequests(app!).map(operationOf);
      expect(session.length).toBeGreaterThanOrEqual(10);
      for (const { doc } of session) expect(errorsOf(doc)).toEqual([]);
      expect(session.filter((s) => !s.body.operationName).length).toBeGreaterThanOrEqual(1);
      const mutations = session.filter((s) => s.op.operation === 'mutation');
      expect(mutations.length).toBe(3);
      for (const { op } of session) {
        visit(op, {
          Field(f) {
            if (f.selectionSet && !f.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.name.value === '__typename')) {
              throw new Error(`${op.name?.value ?? '(anonymous)'}: ${f.name.value} selects no __typename`);
            }
          },
        });
      }
      // Some reads come after the writes and show them.
      const lastWrite = session.findLastIndex((s) => s.op.operation === 'mutation');
      expect(lastWrite).toBeLessThan(session.length - 1);
    });

    it('truth.json answers every held-out request with 200 and a data member', () => {
      const truth = JSON.parse(readFileSync(join(appDir(app!), 'truth.json'), 'utf8')) as {
        answers: { id: string; status: number; json?: { data?: unknown } }[];
      };
      expect(truth.answers.map((a) => a.id)).toEqual(heldOut(app!).map((r) => r.id));
      for (const a of truth.answers)
        expect({ id: a.id, status: a.status, data: a.json && 'data' in a.json }).toEqual({ id: a.id, status: 200, data: true });
    });
  });
}
