import { defineConfig } from 'tsup';

// Two entries: the library, and the script the peer runs in its own child process.
export default defineConfig({
  entry: ['src/index.ts', 'src/peer-process.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  target: 'node20',
});
