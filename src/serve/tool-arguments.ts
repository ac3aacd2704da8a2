/**
 * The arguments of capstate's own MCP tools (analysis and data plane), each declared once
 * with zod (issue 19): the declaration gives the TypeScript type, the published
 * `inputSchema` (JSON Schema) and the check, whose errors name the argument's path.
 * The environment's tools are not here: their schemas are built from each capture's
 * records (src/model/served/input-schema.ts).
 */
import { z } from 'zod';
import { CapstateError } from '../errors.js';

/** Rows query_store returns by default and at most. */
export const QUERY_STORE_ROWS = { default: 500, max: 10_000 } as const;
export const VIEW_KINDS = ['environment-manifest', 'environment-state'] as const;

const none = z.strictObject({});

export const TOOL_ARGUMENTS = {
  inspect_analysis_view: z.strictObject({
    parent: z
      .int({ error: 'parent must be a capture id (a positive integer)' })
      .min(1, { error: 'parent must be a capture id (a positive integer)' })
      .describe('Capture id in the store (default: the served capture)')
      .optional(),
    view: z.strictObject(
      {
        kind: z.enum(VIEW_KINDS, { error: (iss) => `unknown view kind ${JSON.stringify(iss.input)}; kinds: ${VIEW_KINDS.join(', ')}` }),
      },
      { error: 'view must be an object such as {"kind": "environment-manifest"}' },
    ),
  }),
  inspect_environment_manifest: none,
  query_store: z.strictObject({
    sql: z
      .string({ error: 'sql must be one SQL statement (a string)' })
      .refine((s) => s.trim() !== '', { error: 'sql must be one SQL statement (a string)' })
      .describe('One SQL statement that returns rows'),
    max_rows: z
      .int({ error: `max_rows must be an integer from 1 to ${QUERY_STORE_ROWS.max}` })
      .min(1, { error: `max_rows must be an integer from 1 to ${QUERY_STORE_ROWS.max}` })
      .max(QUERY_STORE_ROWS.max, { error: `max_rows must be an integer from 1 to ${QUERY_STORE_ROWS.max}` })
      .optional(),
  }),
  reset_state: none,
  get_state: none,
  // The state document itself is checked against the served capture by validateState
  // (src/serve/data-plane.ts), which names the first wrong field.
  load_state: z.strictObject({
    state: z
      .looseObject({
        kind: z.literal('served-state').optional(),
        capture_id: z.int().optional(),
        entities: z.array(z.unknown()),
        documents: z.array(z.unknown()).optional(),
      })
      .describe(
        'A served-state document: {"kind": "served-state", "capture_id": …, "entities": [{collection, id, value, …}], "documents": [{tool, value, …}]}',
      ),
  }),
} as const;

export type ToolName = keyof typeof TOOL_ARGUMENTS;
export type ToolArguments<T extends ToolName> = z.infer<(typeof TOOL_ARGUMENTS)[T]>;

/** A tool's `inputSchema`: the JSON Schema of its declaration (without `$schema`, which MCP does not ask for). */
export function inputSchemaOf(tool: ToolName): { type: 'object'; [key: string]: unknown } {
  const { $schema: _, ...schema } = z.toJSONSchema(TOOL_ARGUMENTS[tool]) as Record<string, unknown>;
  return schema as { type: 'object'; [key: string]: unknown };
}

const pathOf = (path: PropertyKey[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');

/**
 * A call's arguments, checked against the tool's declaration (absent arguments are `{}`).
 * The first problem is a `bad-arguments` error naming the tool and the argument's path in
 * words (`unknown argument "limit"; arguments: sql, max_rows`) and in `context.argument`.
 */
export function parseToolArguments<T extends ToolName>(tool: T, args: unknown, opts: { checkedLater?: string } = {}): ToolArguments<T> {
  const code = 'bad-arguments';
  const schema = TOOL_ARGUMENTS[tool];
  const r = schema.safeParse(args ?? {});
  if (r.success) return r.data as ToolArguments<T>;
  // What is inside an argument another check owns (load_state's state) is left to it.
  // zod's issues do not carry the input: an argument is absent when the call has nothing at its path.
  const valueAt = (path: PropertyKey[]) =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), args ?? {});
  const absent = (i: z.core.$ZodIssue) => i.code === 'invalid_type' && i.path.length > 0 && valueAt(i.path) === undefined;
  const mine = r.error.issues.filter(
    (i) => opts.checkedLater === undefined || i.path[0] !== opts.checkedLater || (i.path.length === 1 && absent(i)),
  );
  if (mine.length === 0) return (args ?? {}) as ToolArguments<T>;
  // Unknown names first: a misspelt argument explains the missing one beside it.
  const issues = [...mine].sort((a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'));
  const issue = issues[0];
  const at = pathOf(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const known = at === '' ? Object.keys(schema.shape) : [];
    const what = at === '' ? `argument ${JSON.stringify(key)}` : `member ${JSON.stringify(key)} of ${at}`;
    throw new CapstateError(
      code,
      `${tool}: unknown ${what}; ${at === '' ? `arguments: ${known.join(', ') || 'none'}` : 'see the inputSchema'}`,
      { tool, argument: at === '' ? key : `${at}.${key}` },
    );
  }
  if (at === '' && issue.code === 'invalid_type') throw new CapstateError(code, `${tool}: arguments must be an object`, { tool });
  const missing = absent(issue);
  const message = missing
    ? `missing required argument ${JSON.stringify(at)}`
    : issue.message.startsWith('Invalid input')
      ? `${at}: ${issue.message.replace(/^Invalid input: /, '')}`
      : issue.message;
  throw new CapstateError(code, `${tool}: ${message}`, { tool, argument: at });
}
