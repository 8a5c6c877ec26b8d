import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'wasm-host',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    // Builds the fixtures (cached by source hash) and dist/worker-entry.js before any test runs.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
