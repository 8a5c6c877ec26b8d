import { defineProject } from 'vitest/config';

export default defineProject({
  // Integration tests open real agents (SQLite, a code worker), bubblewrap and loopback peers; on a
  // loaded machine one test can take seconds. These are hang guards, not performance limits.
  test: {
    name: 'workspace',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
