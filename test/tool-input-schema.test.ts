/**
 * The environment's tools (issue 19): each tool's inputSchema is built from its capture's
 * records (src/model/served/input-schema.ts), and the check of a call reads that same built
 * schema. This proves they agree: for every tool of several fixtures, calls made from the
 * published schema (valid ones and each way of breaking one) get the same verdict from a
 * standard JSON Schema validator (Ajv) as from capstate's check.
 */
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapstateError } from '../src/errors.js';
import { toolInputCached } from '../src/model/served/answer.js';
import { checkArguments } from '../src/model/served/input-schema.js';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, type Served } from './serve-helpers.js';

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; additionalProperties?: boolean };

const FIXTURES = ['json-server', 'json-server-operators', 'json-server-nested', 'grafana-mini', 'github-multi', 'graphql-mutation'];

/** A value of the schema's type (the first branch of an anyOf). */
function sample(s: Schema): unknown {
  const type = s.type ?? s.anyOf?.[0]?.type;
  switch (type) {
    case 'string':
      return 'v1';
    case 'integer':
      return 7;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, p]) => [k, sample(p)]));
    default:
      return 'v1';
  }
}

/** A value no published type accepts, unless the schema is `string`. */
const wrongFor = (s: Schema): unknown => ((s.type ?? s.anyOf?.[0]?.type) === 'string' ? 42 : 'not-it');

/** Calls made from a tool's published schema: one that gives everything, and each way of breaking it. */
function casesOf(schema: Schema): { name: string; args: unknown }[] {
  const props = schema.properties ?? {};
  const full = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, sample(p)]));
  const required = Object.fromEntries((schema.required ?? []).map((k) => [k, full[k]]));
  const cases: { name: string; args: unknown }[] = [
    { name: 'every argument', args: full },
    { name: 'the required arguments only', args: required },
    { name: 'an unknown argument', args: { ...full, not_an_argument: 'x' } },
    { name: 'arguments that are not an object', args: ['x'] },
  ];
  for (const k of schema.required ?? []) {
    const { [k]: _, ...rest } = full;
    cases.push({ name: `without ${k}`, args: rest });
  }
  for (const [k, p] of Object.entries(props)) {
    cases.push({ name: `${k} of the wrong type`, args: { ...full, [k]: wrongFor(p) } });
    if (p.type === 'string') cases.push({ name: `${k} empty`, args: { ...full, [k]: '' } });
    if (p.type === 'object') {
      for (const [m, q] of Object.entries(p.properties ?? {})) {
        cases.push({ name: `${k}.${m} of the wrong type`, args: { ...full, [k]: { ...(full[k] as object), [m]: wrongFor(q) } } });
      }
      if (p.additionalProperties === false)
        cases.push({ name: `${k} with an unknown member`, args: { ...full, [k]: { ...(full[k] as object), zz_unknown: 'x' } } });
      if (Object.values(p.properties ?? {}).some((q) => q.anyOf)) {
        const arrays = Object.fromEntries(Object.entries(p.properties ?? {}).map(([m, q]) => [m, q.anyOf ? ['a', 'b'] : sample(q)]));
        cases.push({ name: `${k} with repeated values`, args: { ...full, [k]: arrays } });
      }
    }
  }
  return cases;
}

describe("issue 19: an environment tool's check accepts exactly what its published inputSchema accepts", () => {
  const dir = tempDir();
  const served: { fixture: string; s: Served }[] = [];
  const ajv = new Ajv({ strict: true, allErrors: false });

  beforeAll(async () => {
    for (const f of FIXTURES) {
      const db = join(dir, `${f}.sqlite`);
      const r = cli(['load', fixture(f, 'capture.har'), '--db', db]);
      expect(r.status, r.stderr).toBe(0);
      served.push({ fixture: f, s: await serveStore(db) });
    }
  });
  afterAll(async () => {
    for (const { s } of served) await s.close();
  });

  it('every case of every tool gets the same verdict from Ajv and from the check', async () => {
    let compared = 0;
    let refused = 0;
    for (const { fixture: f, s } of served) {
      for (const [name, tool] of s.ctx.tools) {
        const published = s.tool(name).inputSchema as Schema;
        const validate = ajv.compile(published);
        const input = await toolInputCached(s.ctx, tool);
        for (const c of casesOf(published)) {
          let checked: true | string = true;
          try {
            checkArguments(name, input, c.args);
          } catch (e) {
            expect(e, `${f} ${name} ${c.name}`).toBeInstanceOf(CapstateError);
            expect((e as CapstateError).code).toBe('bad-arguments');
            checked = (e as CapstateError).message;
          }
          const valid = validate(c.args);
          expect(
            checked === true,
            `${f} ${name}, ${c.name}: Ajv says ${valid ? 'valid' : ajv.errorsText(validate.errors)}, the check says ${checked === true ? 'valid' : checked}`,
          ).toBe(valid);
          compared++;
          if (!valid) refused++;
        }
      }
    }
    // Both verdicts occur, in numbers: the comparison is not vacuous.
    expect(compared).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(100);
    expect(compared - refused).toBeGreaterThan(50);
  });
});
