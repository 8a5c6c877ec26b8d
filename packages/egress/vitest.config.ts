import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'egress', include: ['src/**/*.test.ts'], setupFiles: ['src/test-setup.ts'] },
});
