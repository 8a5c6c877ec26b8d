import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'wasm-host', include: ['src/**/*.test.ts'] },
});
