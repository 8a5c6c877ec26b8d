// Shared by the tests of this package only (not exported).
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';
import type { Sandbox } from './sandbox.js';

/** Records audit inputs in memory (the chain itself is tested in core). */
export function createRecordingAudit(): AuditSink & { events: AuditInput[] } {
  const events: AuditInput[] = [];
  return {
    events,
    record(input: AuditInput): AuditEvent {
      events.push(input);
      return {
        ...input,
        v: 1,
        time: new Date(0).toISOString(),
        prev: '0'.repeat(64),
        hash: String(events.length).padStart(64, '0'),
      };
    },
  };
}

/** A fresh host directory (real path, so grants and sandbox paths agree). */
export function freshDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Runs one command in a sandbox and collects everything. */
export async function runIn(
  sb: {
    spawn: (
      argv: readonly string[],
      o?: Record<string, unknown>,
    ) => Promise<{
      stdout: NodeJS.ReadableStream;
      stderr: NodeJS.ReadableStream;
      exit: Promise<import('./sandbox.js').SandboxExit>;
    }>;
  },
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

/**
 * A minimal SOCKS5 UDP client: ASSOCIATE on 127.0.0.1:3128, then one datagram per
 * `host:port:text` argument (in order) from one socket; prints `REP n` for a refused ASSOCIATE,
 * `ECHO <text>` for each reply, and exits after the reply to the last datagram.
 */
export const SOCKS_UDP = `
const net = require('net'), dgram = require('dgram');
const sends = process.argv.slice(1).map((a) => a.split(':'));
const c = net.connect(3128, '127.0.0.1', () => c.write(Buffer.from([5, 1, 0])));
let stage = 0, buf = Buffer.alloc(0);
c.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  if (stage === 0 && buf.length >= 2) {
    buf = buf.subarray(2);
    stage = 1;
    c.write(Buffer.from([5, 3, 0, 1, 0, 0, 0, 0, 0, 0]));
  }
  if (stage !== 1 || buf.length < 10) return;
  stage = 2;
  if (buf[1] !== 0) { console.log('REP ' + buf[1]); process.exit(0); }
  const relay = { host: buf.subarray(4, 8).join('.'), port: buf.readUInt16BE(8) };
  const u = dgram.createSocket('udp4');
  const last = sends[sends.length - 1][2];
  u.on('message', (m) => {
    const text = m.subarray(10).toString();
    console.log('ECHO ' + text);
    if (text === last) process.exit(0);
  });
  for (const [host, port, text] of sends) {
    const h = Buffer.from(host), p = Buffer.alloc(2);
    p.writeUInt16BE(Number(port));
    u.send(Buffer.concat([Buffer.from([0, 0, 0, 3, h.length]), h, p, Buffer.from(text)]), relay.port, relay.host);
  }
});
c.on('error', (e) => { console.log('ERR ' + e.code); process.exit(0); });
`;

/** Host processes whose command line contains `marker`. */
export function hostPidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker)) out.push(Number(d));
    } catch {
      /* exited */
    }
  }
  return out;
}

/**
 * Polls until no host process carries `marker`; returns early, so the bound only matters on failure (a loaded host can
 * take seconds to reap a tree).
 */
export async function waitGone(marker: string): Promise<number[]> {
  for (let i = 0; i < 750; i++) {
    const left = hostPidsWith(marker);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
  return hostPidsWith(marker);
}

/** Polls `ok` until it holds; throws, naming `what`, after about five seconds (a bound for failures only). */
export async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The fields of /proc/<pid>/stat after the command's parenthesised name: state, ppid, …; throws once it is gone. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The pid of a sandbox's spawn server: the parent of a run that stays until it has been asked. */
export async function serverOf(sb: Sandbox): Promise<number> {
  const p = await sb.spawn(['/bin/sh', '-c', 'echo ready; exec sleep 30']);
  await new Promise((ok) => p.stdout.once('data', ok));
  const server = parentOf(p.pid);
  p.kill();
  await p.exit;
  return server;
}

/** The parent pid of `pid`. */
export function parentOf(pid: number): number {
  return Number(statFields(pid)[1]);
}

/** Still running (a zombie waiting to be reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    return statFields(pid)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The direct children of `pid` ([] once it is gone). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Every process below `pid`. */
export function descendants(pid: number): number[] {
  return childrenOf(pid).flatMap((k) => [k, ...descendants(k)]);
}

/** Those of `pids` whose name (`/proc/<pid>/comm`) is `name`; a process gone meanwhile is left out. */
export function named(pids: readonly number[], name: string): number[] {
  return pids.filter((p) => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  });
}
