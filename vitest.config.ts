import { defineConfig } from 'vitest/config';
import SummaryReporter from './tools/summary-reporter.js';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/studio', 'tests'],
    reporters: ['default', new SummaryReporter()],
  },
});
