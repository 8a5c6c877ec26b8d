/**
 * Writes the marked README examples into the consumer project, type-checks the TypeScript ones
 * together with one import of every public entry point, and runs each example in its own empty
 * directory as a user would paste it.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadmeExample } from './readme-examples.js';

export interface NamedExample extends ReadmeExample {
  /** `<package dir>-L<line>`, e.g. `core-L15`. */
  id: string;
}

export interface ExampleRun {
  id: string;
  status: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * Writes tsconfig + api.ts + the TS examples, runs tsc (nodenext, skipLibCheck off). Returns tsc's output,
 * '' when clean.
 */
export function typeCheck(project: string, entryPoints: string[], examples: NamedExample[]): string {
  mkdirSync(join(project, 'examples'), { recursive: true });
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          outDir: 'out',
          rootDir: '.',
        },
        include: ['api.ts', 'examples/*.ts'],
      },
      null,
      2,
    ),
  );
  // Type-only namespace imports: every entry point's .d.ts must resolve and check (importing the
  // CLI's entry for its value would run the command).
  writeFileSync(
    join(project, 'api.ts'),
    entryPoints.map((e, i) => `import type * as m${i} from '${e}';\nexport type T${i} = typeof m${i};\n`).join(''),
  );
  for (const ex of examples) if (ex.lang === 'ts') writeFileSync(join(project, 'examples', `${ex.id}.ts`), ex.code);
  const r = spawnSync(join(project, 'node_modules', '.bin', 'tsc'), ['-p', project], {
    cwd: project,
    encoding: 'utf8',
  });
  return r.status === 0 ? '' : `${r.stdout}${r.stderr}` || `tsc exited ${r.status}`;
}

/** Runs one example (TS from tsc's output) in a fresh directory; the project's bins are on PATH. */
export function runExample(project: string, ex: NamedExample, env: NodeJS.ProcessEnv): ExampleRun {
  const cwd = mkdtempSync(join(project, `run-${ex.id}-`));
  const opts = {
    cwd,
    encoding: 'utf8' as const,
    timeout: 180_000,
    killSignal: 'SIGKILL' as const,
    env: { ...env, PATH: `${join(project, 'node_modules', '.bin')}:${env.PATH ?? ''}` },
  };
  let r: SpawnSyncReturns<string>;
  if (ex.lang === 'ts') r = spawnSync(process.execPath, [join(project, 'out', 'examples', `${ex.id}.js`)], opts);
  else if (ex.lang === 'js') {
    const file = join(project, 'examples', `${ex.id}.mjs`);
    writeFileSync(file, ex.code);
    r = spawnSync(process.execPath, [file], opts);
  } else {
    const file = join(project, 'examples', `${ex.id}.sh`);
    writeFileSync(file, ex.code);
    r = spawnSync('bash', ['-euo', 'pipefail', file], opts);
  }
  return {
    id: ex.id,
    status: r.status,
    signal: r.signal,
    output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
  };
}
