import { defineConfig } from 'tsup';

export default defineConfig({
  // sql-host-entry runs in each agent's SQL process; it must be its own file.
  entry: { index: 'src/index.ts', 'sql-host-entry': 'src/sql/sql-host-entry.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  target: 'node20',
});
