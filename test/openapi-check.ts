/**
 * Issue 47: the OpenAPI export of a loaded store, and the check that it is valid OpenAPI 3.1 by a
 * standard validator (@seriousme/openapi-schema-validator, a pinned dev dependency) and the same
 * bytes when exported again.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'vitest';
import { openApiOf } from '../src/export/openapi.js';
import { stringifyExact } from '../src/json/exact.js';
import { closeServeContext, openServeContext } from '../src/model/served/context.js';

/** The export of the store's (only) capture, as `capstate export openapi` prints it. */
export async function openApiText(db: string): Promise<string> {
  const ctx = await openServeContext(db);
  try {
    return stringifyExact(await openApiOf(ctx), 2);
  } finally {
    await closeServeContext(ctx);
  }
}

const validator = new Validator();

/** Fails unless the store's export is valid OpenAPI 3.1 and byte-stable. */
export async function expectValidOpenApi(db: string, name: string): Promise<void> {
  const text = await openApiText(db);
  expect(await openApiText(db), `${name}: exported twice`).toBe(text);
  const result = await validator.validate(JSON.parse(text));
  expect(result.errors ?? [], name).toEqual([]);
  expect(result.valid, name).toBe(true);
}
