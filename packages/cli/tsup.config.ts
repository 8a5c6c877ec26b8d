import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineConfig } from 'tsup';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  // root-help only feeds the build step below (dist/root-help.json for bin/trust.cjs).
  entry: ['src/index.ts', 'src/root-help.ts'],
  format: ['esm'],
  // A command, not a library: no declarations (package.json has only `bin`).
  dts: false,
  clean: true,
  target: 'node20',
  // Commands are dynamic imports; splitting keeps each in its own chunk so `trust --help` loads
  // only the command table.
  splitting: true,
  // The CLI is published alone, so it carries the built studio (turbo builds @trust/studio
  // first: it is a devDependency). `trust studio` serves dist/studio.
  async onSuccess() {
    const { rootHelpTexts } = (await import(pathToFileURL(join(here, 'dist', 'root-help.js')).href)) as {
      rootHelpTexts: () => { plain: string; color: string };
    };
    writeFileSync(join(here, 'dist', 'root-help.json'), JSON.stringify(rootHelpTexts()));
    const studio = join(here, 'node_modules', '@trust', 'studio', 'dist');
    if (!existsSync(join(studio, 'index.html'))) {
      console.warn('cli: the studio is not built (no @trust/studio dist/index.html); `trust studio` will say so');
      return;
    }
    cpSync(studio, join(here, 'dist', 'studio'), { recursive: true });
    console.log('cli: copied the studio into dist/studio');
  },
});
