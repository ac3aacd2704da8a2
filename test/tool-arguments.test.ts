/**
 * capstate's own MCP tools (analysis and data plane) declare their arguments once, with
 * zod (issue 19): the published inputSchema is that declaration's JSON Schema, and a call
 * is checked by the same declaration, with errors that name the argument's path.
 */
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputSchemaOf, parseToolArguments, TOOL_ARGUMENTS, type ToolName } from '../src/serve/tool-arguments.js';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, type Served } from './serve-helpers.js';

const dir = tempDir();
let s: Served;
beforeAll(async () => {
  const db = join(dir, 'grafana-mini.sqlite');
  expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]).status).toBe(0);
  s = await serveStore(db);
});
afterAll(async () => {
  await s?.close();
});

/** Calls `tool` over MCP and returns its error document (or null when the call succeeded). */
async function errorOf(tool: string, args: unknown): Promise<{ code: string; message: string; context: Record<string, unknown> } | null> {
  const r = await s.client.callTool({ name: tool, arguments: args as Record<string, unknown> });
  return r.isError ? (r.structuredContent as { code: string; message: string; context: Record<string, unknown> }) : null;
}

const SAMPLES: Record<ToolName, unknown[]> = {
  inspect_analysis_view: [
    { view: { kind: 'environment-state' } },
    { parent: 1, view: { kind: 'environment-manifest' } },
    {},
    { view: { kind: 'x' } },
    { parent: 0, view: { kind: 'environment-state' } },
    { parent: 1.5, view: { kind: 'environment-state' } },
    { view: { kind: 'environment-state', y: 1 } },
    { view: 'environment-state' },
    { x: 1, view: { kind: 'environment-state' } },
  ],
  inspect_environment_manifest: [{}, { x: 1 }],
  query_store: [
    { sql: 'select 1' },
    { sql: 'select 1', max_rows: 10 },
    { sql: 3 },
    {},
    { sql: 'select 1', max_rows: 0 },
    { sql: 'select 1', max_rows: 10_001 },
    { sql: 'select 1', max_rows: 2.5 },
    { sql: 'select 1', limit: 3 },
  ],
  reset_state: [{}, { hard: true }],
  get_state: [{}, { format: 'json' }],
  load_state: [
    { state: { entities: [] } },
    { state: { kind: 'served-state', capture_id: 1, entities: [], documents: [] } },
    {},
    { state: {}, extra: 1 },
  ],
};

describe('one declaration per tool: the served inputSchema is its JSON Schema and accepts what the check accepts', () => {
  it('every analysis and data-plane tool a client lists has the schema of its declaration', () => {
    for (const name of Object.keys(TOOL_ARGUMENTS) as ToolName[]) {
      expect(s.tool(name).inputSchema, name).toEqual(inputSchemaOf(name));
      expect(inputSchemaOf(name)).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it.each(Object.keys(SAMPLES) as ToolName[])('%s: a JSON Schema validator and the check agree on each sample', (name) => {
    const validate = new Ajv({ strict: false }).compile(inputSchemaOf(name));
    for (const args of SAMPLES[name]) {
      let accepted: boolean;
      try {
        parseToolArguments(name, args);
        accepted = true;
      } catch {
        accepted = false;
      }
      expect(accepted, `${name} ${JSON.stringify(args)}`).toBe(validate(args));
    }
  });
});

describe('bad arguments: errors name the tool, the argument and what to give (isError, code bad-arguments)', () => {
  it.each([
    ['query_store', { sql: 3 }, 'query_store: sql must be one SQL statement (a string)', 'sql'],
    ['query_store', { sql: '  ' }, 'query_store: sql must be one SQL statement (a string)', 'sql'],
    ['query_store', {}, 'query_store: missing required argument "sql"', 'sql'],
    ['query_store', { sql: 'select 1', limit: 3 }, 'query_store: unknown argument "limit"; arguments: sql, max_rows', 'limit'],
    ['query_store', { sql: 'select 1', max_rows: 0 }, 'query_store: max_rows must be an integer from 1 to 10000', 'max_rows'],
    ['query_store', { sql: 'select 1', max_rows: 2.5 }, 'query_store: max_rows must be an integer from 1 to 10000', 'max_rows'],
    [
      'inspect_analysis_view',
      { view: { kind: 'x' } },
      'inspect_analysis_view: unknown view kind "x"; kinds: environment-manifest, environment-state',
      'view.kind',
    ],
    [
      'inspect_analysis_view',
      { view: { kind: 'environment-state', y: 1 } },
      'inspect_analysis_view: unknown member "y" of view; see the inputSchema',
      'view.y',
    ],
    [
      'inspect_analysis_view',
      { view: 'environment-state' },
      'inspect_analysis_view: view must be an object such as {"kind": "environment-manifest"}',
      'view',
    ],
    [
      'inspect_analysis_view',
      { parent: 0, view: { kind: 'environment-state' } },
      'inspect_analysis_view: parent must be a capture id (a positive integer)',
      'parent',
    ],
    ['inspect_analysis_view', {}, 'inspect_analysis_view: missing required argument "view"', 'view'],
    ['inspect_environment_manifest', { x: 1 }, 'inspect_environment_manifest: unknown argument "x"; arguments: none', 'x'],
    ['reset_state', { hard: true }, 'reset_state: unknown argument "hard"; arguments: none', 'hard'],
    ['load_state', {}, 'load_state: missing required argument "state"', 'state'],
    ['load_state', { state: { entities: [] }, extra: 1 }, 'load_state: unknown argument "extra"; arguments: state', 'extra'],
  ])('%s %j', async (tool, args, message, argument) => {
    expect(await errorOf(tool, args)).toMatchObject({ code: 'bad-arguments', message, context: { tool, argument } });
  });

  it('arguments that are not an object are refused as such', () => {
    expect(() => parseToolArguments('query_store', [])).toThrow('query_store: arguments must be an object');
    expect(() => parseToolArguments('get_state', 'x')).toThrow('get_state: arguments must be an object');
  });

  it("load_state's document itself is checked against the served capture by validateState (code bad-state, the field named)", async () => {
    expect(await errorOf('load_state', { state: 'x' })).toMatchObject({ code: 'bad-state', context: { field: 'state' } });
    expect(await errorOf('load_state', { state: {} })).toMatchObject({
      code: 'bad-state',
      message: expect.stringMatching(/state\.entities must be an array/),
      context: { field: 'state.entities' },
    });
  });

  it('good arguments pass, with their defaults: a query_store call returns its rows, inspect_analysis_view the served capture', async () => {
    const q = await s.call('query_store', { sql: 'select 1 as one' });
    expect(q.isError).toBeFalsy();
    expect(q.structuredContent).toMatchObject({ ok: true, rows: [{ one: 1 }], max_rows: 500 });
    const v = await s.call('inspect_analysis_view', { view: { kind: 'environment-manifest' } });
    expect(v.structuredContent).toMatchObject({ ok: true, parent: 1 });
  });
});
