import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'studio', include: ['src/**/*.test.ts'] },
});
