// Kills a child process in the middle of multi-row writes and proves the .adf file stays
// consistent: every batch is all-or-nothing, the file opens as foreign (full integrity check),
// and the audit chain verifies. The child runs the built package (dist/), like any consumer.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf } from './adf-file.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'index.js');
const BATCH = 40;

const child = `
import { openAdf } from ${JSON.stringify(pathToFileURL(dist).href)};
const adf = openAdf(process.argv[2], { trust: 'owned' });
const blob = 'x'.repeat(20000);
for (let b = 0; ; b++) {
  adf.transaction(() => {
    for (let i = 0; i < ${BATCH}; i++) {
      adf.loop.append({ role: 'tool', content: { batch: b, i } });
      adf.files.write('batch/' + process.pid + '-' + b + '/' + i + '.txt', blob + b);
    }
    adf.audit.record({
      principal: { kind: 'owner', id: 'crash-test' },
      action: 'test.batch',
      target: String(b),
      decision: 'allow',
    });
  });
  if (b === 0) process.stdout.write('ready\\n');
}
`;

function runAndKill(script: string, path: string, delayMs: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [script, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    p.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) setTimeout(() => p.kill('SIGKILL'), delayMs);
    });
    p.on('error', reject);
    p.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(signal) : reject(new Error(`child exited with ${code}: ${err}`)),
    );
  });
}

describe('crash consistency', () => {
  it('SIGKILL during multi-row transactions leaves a consistent, openable file', async () => {
    expect(
      existsSync(dist),
      `build the package first (pnpm turbo run build --filter=@trust/agent-runtime): ${dist} is missing`,
    ).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'adf-crash-'));
    const path = join(dir, 'agent.adf');
    createAdf(path).close();
    const script = join(dir, 'writer.mjs');
    writeFileSync(script, child);
    for (const delay of [3, 37, 111]) {
      expect(await runAndKill(script, path, delay)).toBe('SIGKILL');
      const adf = openAdf(path, { trust: 'foreign' });
      const loopRows = adf.db.prepare('SELECT count(*) FROM adf_loop').pluck().get() as number;
      const files = adf.db.prepare("SELECT count(*) FROM adf_files WHERE path LIKE 'batch/%'").pluck().get() as number;
      const batches = adf.audit.list({ action: 'test.batch' }).length;
      expect(loopRows % BATCH).toBe(0);
      expect(files).toBe(loopRows);
      expect(batches * BATCH).toBe(loopRows);
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(adf.audit.verify()).toMatchObject({ ok: true });
      adf.close();
    }
  }, 120_000);
});
