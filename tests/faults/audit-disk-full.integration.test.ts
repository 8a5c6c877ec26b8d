// Fault: the JSONL audit sink on a full disk. The writer runs in its own user and mount
// namespace and mounts a tiny tmpfs there, so no root and no host mount is needed; if the
// namespace or the mount cannot be made, this test fails (it never skips).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const writer = fileURLToPath(new URL('./audit-disk-full-writer.mjs', import.meta.url));
const mountPoint = mkdtempSync(join(tmpdir(), 'trust-fault-enospc-'));
afterAll(() => rmSync(mountPoint, { recursive: true, force: true }));

interface Failure {
  code: string | null;
  message: string;
}
interface State {
  endsWithNewline: boolean;
  bytes: number;
  verdict: { ok: boolean; count?: number; head?: string };
}
interface Report {
  acked: string[];
  full?: Failure;
  whenFull: State & { head: string };
  again?: Failure;
  stillFull: State;
  afterFree?: Failure;
  reopened?: Failure;
  final: State;
  finalHashes: string[];
}

describe('fault: the JSONL audit sink on a full disk', () => {
  it(
    'writes each event completely or not at all, throws ' + 'AUDIT_WRITE_FAILED, and records again once space is freed',
    () => {
      const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', process.execPath, writer, mountPoint], {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.error, 'unshare must be available').toBeUndefined();
      expect(run.status, `writer failed: ${run.stderr}`).toBe(0);
      const r = JSON.parse(run.stdout) as Report;
      // The disk filled up: nothing of the refused event stays on disk, and it is a typed error.
      expect(r.full, 'the disk never filled').toBeDefined();
      expect(r.whenFull.endsWithNewline, 'a torn event was left on disk').toBe(true);
      const beforeFree = r.acked.length - 2;
      expect(beforeFree).toBeGreaterThan(5);
      expect(r.full?.code, JSON.stringify(r.full)).toBeTrustCode('AUDIT_WRITE_FAILED');
      expect(r.full?.message).toContain('ENOSPC');
      expect(r.whenFull.verdict).toMatchObject({ ok: true, count: beforeFree });
      // The head never moved past a line that is not wholly on disk.
      expect(r.whenFull.head).toBe(r.acked[beforeFree - 1]);
      // Still full: refused again, the same way, and the file is still whole.
      expect(r.again?.code).toBeTrustCode('AUDIT_WRITE_FAILED');
      expect(r.stillFull).toEqual({ endsWithNewline: true, bytes: r.whenFull.bytes, verdict: r.whenFull.verdict });
      // Space freed: the same sink records, a new sink opens the file, nothing acknowledged is lost.
      expect(r.afterFree).toBeUndefined();
      expect(r.reopened).toBeUndefined();
      expect(r.final.verdict).toMatchObject({ ok: true, count: r.acked.length });
      expect(r.finalHashes).toEqual(r.acked);
    },
  );
});
