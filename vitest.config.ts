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
  },
});
