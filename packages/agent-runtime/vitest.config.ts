import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'agent-runtime',
    include: ['src/**/*.test.ts'],
    // Builds dist/code-worker.js (the code sandbox's worker entry) before any test runs.
    globalSetup: ['./test/global-setup.ts'],
  },
});
