/**
 * The layering of src/ as a checked rule (issue 13; docs/architecture.md). Each floor may
 * import its own folder and any lower floor, never a higher one, and never a neighbour on
 * its own floor; no module imports itself round a cycle (of imports that stay at run time). test/layering.test.ts runs this
 * on src/ and lists the offending import lines.
 *
 * A folder here is the first segment under src/ (`src/state/steps/x.ts` is in `state`);
 * `errors` is the one top-level module, src/errors.ts.
 */
const FLOORS = [
  ['json', 'errors'], // exact JSON, pointers, SHA-256, the output format; the one error shape
  ['store'], //          open, migrate, views, Kysely types, vocabulary, read-only SQL
  ['manifest'], //       admission, templates, tools, type roots: inferred from stored facts
  ['load'], //           reading captures and writing their facts (and the manifest's rows)
  ['model', 'browser', 'compare'], // plans, rendering, the stored state read back, the served model; scenario capture; capture comparison
  ['state'], //          the state pass and its writer
  ['serve', 'ingest'], // the model's face to callers (catalog, descriptions, data plane); the load command (facts, then each state)
  ['mcp', 'http', 'report', 'export'], // the MCP server over serve/; the HTTP server and the report beside it; the model in other tools' formats
  ['cli', 'index', 'playwright'], //   one file per command; src/index.ts, the library's entry point; capstate/playwright
];

const folder = (name) => `^src/${name}(/|\\.ts$)`;
const any = (names) => `^src/(${names.join('|')})(/|\\.ts$)`;
const known = FLOORS.flat();

const layerRules = FLOORS.flatMap((floor, i) => {
  const below = FLOORS.slice(0, i).flat();
  return floor.map((name) => ({
    name: `floor-${name}`,
    comment: `${name} (floor ${i}) may import ${below.length ? below.join(', ') : 'nothing of src/ but itself'}`,
    severity: 'error',
    from: { path: folder(name) },
    to: { path: '^src/', pathNot: any([name, ...below]) },
  }));
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'floor-unknown',
      comment: 'every module of src/ is on a floor: add its folder to FLOORS in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: any(known) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no module imports itself round a cycle of imports that stay in the compiled JavaScript',
      severity: 'error',
      from: { path: '^src/' },
      // A cycle closed only by `import type` is gone at run time; the floors above still count type imports.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    includeOnly: '^src/',
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type from a higher floor ties the floors together as much as a value.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
