import { describe, expect, it } from 'vitest';
import { isGraphqlQueryOnly } from '../src/manifest/graphql.js';

const q = (query: string, operationName?: string) => (operationName === undefined ? { query } : { query, operationName });

describe('OQ-7 GraphQL query POSTs', () => {
  it('OQ-7 a plain query, the shorthand and a named query are read-only', () => {
    expect(isGraphqlQueryOnly([q('query { viewer { login } }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('{ viewer { login } }')])).toBe(true);
    expect(
      isGraphqlQueryOnly([q('query Viewer($first: Int = 10, $f: In = {a: 1}) @cached(ttl: 5) { viewer { repos(first: $first) { id } } }')]),
    ).toBe(true);
    expect(isGraphqlQueryOnly([q('query Viewer { viewer { login } }', 'Viewer')])).toBe(true);
  });

  it('OQ-7 with operationName, the named operation is judged', () => {
    expect(isGraphqlQueryOnly([q('query A{a} mutation B{b}', 'B')])).toBe(false);
    expect(isGraphqlQueryOnly([q('query A{a} mutation B{b}', 'A')])).toBe(true);
    expect(isGraphqlQueryOnly([q('query A{a} mutation B{b}', 'C')])).toBe(false);
    expect(isGraphqlQueryOnly([{ query: 'query A{a}', operationName: null }])).toBe(true);
  });

  it('OQ-7 without operationName, any mutation or subscription makes it a write', () => {
    expect(isGraphqlQueryOnly([q('query A{a} mutation B{b}')])).toBe(false);
    expect(isGraphqlQueryOnly([q('query A{a} query B{b}')])).toBe(true);
    expect(isGraphqlQueryOnly([q('mutation AddStar { addStar(input: {}) { clientMutationId } }')])).toBe(false);
  });

  it('OQ-7 a fragment is not an operation: a fragment before a mutation is still a write', () => {
    const doc = 'fragment F on Repo { id name } mutation M { star(id: 1) { ...F } }';
    expect(isGraphqlQueryOnly([q(doc)])).toBe(false);
    expect(isGraphqlQueryOnly([q('fragment F on Repo { id } query Q { repo { ...F } }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('fragment F on Repo { id }')])).toBe(false);
  });

  it('OQ-7 "mutation" inside a string, a block string or a comment does not count', () => {
    expect(isGraphqlQueryOnly([q('query { search(text: "} mutation X { y }") { id } }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('query { search(text: """\n} mutation X { y } \\""" {\n""") { id } }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('# mutation X { y }\nquery { a } # } mutation Z { z }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('query { search(text: "a \\" } mutation X { y }") { id } }')])).toBe(true);
    expect(isGraphqlQueryOnly([q('query { mutation { id } }')])).toBe(true);
  });

  it('OQ-7 a batch (array body) is read-only only when every operation in it is', () => {
    expect(isGraphqlQueryOnly([[q('{ a }'), q('query B { b }')]])).toBe(true);
    expect(isGraphqlQueryOnly([[q('{ a }'), q('mutation B { b }')]])).toBe(false);
    expect(isGraphqlQueryOnly([[]])).toBe(false);
  });

  it('OQ-7 every recorded body must be read-only', () => {
    expect(isGraphqlQueryOnly([q('{ a }'), q('mutation B { b }')])).toBe(false);
    expect(isGraphqlQueryOnly([q('{ a }'), q('{ b }')])).toBe(true);
    expect(isGraphqlQueryOnly([])).toBe(false);
  });

  it('OQ-7 a persisted query without query text is unknown, so a write', () => {
    expect(isGraphqlQueryOnly([{ operationName: 'Viewer', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }])).toBe(
      false,
    );
    expect(
      isGraphqlQueryOnly([
        { query: 'query Viewer { v }', operationName: 'Viewer', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } },
      ]),
    ).toBe(true);
  });

  it('OQ-7 a raw application/graphql string body is read', () => {
    expect(isGraphqlQueryOnly(['query { viewer { login } }'])).toBe(true);
    expect(isGraphqlQueryOnly(['mutation { logout }'])).toBe(false);
  });

  it('OQ-7 a subscription is not read-only', () => {
    expect(isGraphqlQueryOnly([q('subscription OnEvent { event { id } }')])).toBe(false);
    expect(isGraphqlQueryOnly([q('query A{a} subscription S{s}', 'S')])).toBe(false);
  });

  it('OQ-7 unreadable or unexpected bodies are writes', () => {
    for (const b of [
      null,
      42,
      true,
      {},
      { query: 5 },
      { query: '{ a }', operationName: 7 },
      { query: '' },
      { query: '{ a ' },
      { query: '{ a(x: "unterminated) }' },
      { query: 'query { a } }' },
      { query: 'type Query { a: Int }' },
      [['{ a }']],
      ['{ a }'],
    ]) {
      expect(isGraphqlQueryOnly([b]), JSON.stringify(b)).toBe(false);
    }
  });
});
