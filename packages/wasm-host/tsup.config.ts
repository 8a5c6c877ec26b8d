import { defineConfig } from 'tsup';

export default defineConfig({
  // worker-entry runs inside each plugin's worker thread; it must be its own file.
  entry: ['src/index.ts', 'src/worker-entry.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  target: 'node20',
});
