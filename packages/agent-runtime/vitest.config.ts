import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'agent-runtime',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    // Builds the SQL process's and the code worker's entries before any test runs.
    globalSetup: ['./test-setup/build-entries.ts'],
  },
});
