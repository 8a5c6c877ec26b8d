import { defineProject } from 'vitest/config';

export default defineProject({
  // Integration tests start bubblewrap, a proxy and child processes; on a loaded shared CI
  // machine a single test can take seconds. These are hang guards, not performance limits.
  test: {
    name: 'os-sandbox',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
