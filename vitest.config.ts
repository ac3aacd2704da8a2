import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One migrated store per run, copied by tests that need an empty store (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // CLI tests spawn the built binary; a 2-core CI machine runs two files at a time.
    maxWorkers: 2,
    // The test files of a worker share one module graph: importing src/ again for each of ~180
    // files cost ~120 s of the suite's ~550 (30 s shared). Every file restores what it changes
    // (process.env, timers, spies) in its own finally or afterEach; `npx vitest run --isolate`
    // runs each file in a module graph of its own, to tell a leak from a failure.
    isolate: false,
  },
});
