import { defineProject } from 'vitest/config';

export default defineProject({
  // Integration tests spawn the built binary (and bubblewrap); on a loaded machine one spawn can
  // take seconds, so the per-test budget is generous. This is a hang guard, not a speed check.
  test: { name: 'cli', include: ['src/**/*.test.ts'], setupFiles: ['src/test-setup.ts'], testTimeout: 60_000 },
});
