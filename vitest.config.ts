import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Each worker process runs its files one after another on one module registry: the sources are
    // imported and compiled by the JIT once per worker rather than once per file, which took about
    // half of the suite's time. Apps, databases and servers are made and closed by each file.
    isolate: false,
    // Vitest's default keeps a core free, which on a machine of two runs one file at a time; the
    // SQLite suite's files wait on child processes, worker threads and timers as much as they
    // compute, and two at a time take about two thirds as long. CI's PostgreSQL leg, whose database
    // competes for the same cores, passes its own --maxWorkers.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    globalSetup: ['test/helpers/global-setup.ts'],
    // The second fails a test whose app sent an answer its route's schema does not describe.
    setupFiles: ['test/helpers/property-seed.ts', 'test/helpers/answer-check-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
