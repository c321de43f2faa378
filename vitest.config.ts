import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'eslint-rules/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // builds the command line (out/cli) once: tests that start bin/loupe.js run this tree's code
    globalSetup: ['scripts/vitest-setup.mjs'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
