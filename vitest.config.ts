import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'eslint-rules/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // builds the command line (out/cli) once: tests that start bin/loupe.js run this tree's code
    globalSetup: ['scripts/vitest-setup.mjs'],
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: one fork on a 2-core machine, which left a
    // core idle while tests wait on their child processes (the CLI, workers, sandboxes). Two there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
