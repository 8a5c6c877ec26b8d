import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'agent-runtime', include: ['src/**/*.test.ts'], globalSetup: ['./test-setup/build-entries.ts'] },
});
