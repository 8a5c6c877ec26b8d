// Shared by the tests of this package only (not exported).
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';

/** Records audit inputs in memory (the chain itself is tested in core). */
export function createRecordingAudit(): AuditSink & { events: AuditInput[] } {
  const events: AuditInput[] = [];
  return {
    events,
    record(input: AuditInput): AuditEvent {
      events.push(input);
      return { ...input, v: 1, time: new Date(0).toISOString(), prev: '0'.repeat(64), hash: String(events.length).padStart(64, '0') };
    },
  };
}

/** A fresh host directory (real path, so grants and sandbox paths agree). */
export function freshDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Runs one command in a sandbox and collects everything. */
export async function runIn(
  sb: { spawn: (argv: readonly string[], o?: Record<string, unknown>) => Promise<{ stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream; exit: Promise<import('./sandbox.js').SandboxExit> }> },
  argv: readonly string[],
  options: Record<string, unknown> = {},
): Promise<{ stdout: string; stderr: string; exit: import('./sandbox.js').SandboxExit }> {
  const p = await sb.spawn(argv, options);
  const read = async (s: NodeJS.ReadableStream): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(Buffer.from(c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  };
  const [stdout, stderr, exit] = await Promise.all([read(p.stdout), read(p.stderr), p.exit]);
  return { stdout, stderr, exit };
}

/** The Node binary running the tests, and the extra system root that makes it visible inside a sandbox. */
export const NODE = process.execPath;
export const NODE_ROOTS: string[] = NODE.startsWith('/usr/') ? [] : [join(NODE, '..', '..')];
