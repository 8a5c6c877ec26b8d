import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'os-sandbox', include: ['src/**/*.test.ts'] },
});
