// Fault: SIGKILL while the JSONL audit sink writes. A fixed number of rounds: each starts a
// writer on the same file, kills it after a few acknowledged events, then checks that no
// acknowledged event was lost, that a torn tail is reported as such and that the repair
// removes only it, so the next writer continues the chain.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isTrustError, verifyChain } from '@trust/core';
import { createJsonlAuditSink, readJsonlAudit, repairJsonlAudit } from '@trust/core/node';

const writer = fileURLToPath(new URL('./audit-kill-writer.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'trust-fault-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROUNDS = 10;

/** Starts the writer, kills it once `after` events were acknowledged; resolves with them. */
function killAfter(file: string, after: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, file, String(64 * 1024 + after * 4099)], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: string[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const l of lines) if (l !== 'ready') acked.push(l);
      if (acked.length >= after) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`writer exited ${code}: ${stderr}`)),
    );
  });
}

describe('fault: SIGKILL during JSONL audit writes', () => {
  it(
    `loses no acknowledged event over ${ROUNDS} kills, and a ` + `torn tail is repaired without touching the rest`,
    async () => {
      let torn = 0;
      for (let round = 0; round < ROUNDS; round++) {
        // A file per round keeps every round's reading small; events are 64 KiB or more, several pages per write.
        const file = join(dir, `audit-${round}.jsonl`);
        const acked = await killAfter(file, 1 + (round % 3));
        let opened: ReturnType<typeof createJsonlAuditSink> | undefined;
        try {
          opened = createJsonlAuditSink(file);
        } catch (e) {
          expect(isTrustError(e) && e.code, String(e)).toBeTrustCode('AUDIT_FILE_CORRUPT');
          expect(isTrustError(e) && e.problems.map((p) => p.code)).toEqual(['AUDIT_TORN_TAIL']);
          const before = readFileSync(file);
          const repair = repairJsonlAudit(file);
          expect(repair).toMatchObject({ torn: true, changed: true, keptBytes: before.length - repair.removedBytes });
          expect(readFileSync(file).equals(before.subarray(0, repair.keptBytes))).toBe(true);
          opened = createJsonlAuditSink(file);
          torn++;
        }
        const hashes = readJsonlAudit(file).map((e) => e.hash);
        // Every acknowledged event is on disk, in order; at most the one being written is not.
        expect(hashes.slice(0, acked.length)).toEqual(acked);
        expect(hashes.length - acked.length).toBeLessThanOrEqual(1);
        // The next writer continues the chain.
        expect(opened.head()).toBe(hashes.at(-1));
        opened.record({
          principal: { kind: 'process', id: 'fault' },
          action: 'sandbox.spawn',
          target: '/bin/after',
          decision: 'allow',
        });
        opened.close();
        expect(verifyChain(readJsonlAudit(file))).toMatchObject({ ok: true, count: hashes.length + 1 });
        rmSync(file);
      }
      // The rounds are reported, not asserted: whether a kill lands mid-write is up to the kernel.
      console.info(`kill loop: ${ROUNDS} rounds, ${torn} torn tail(s) repaired`);
    },
  );
});
