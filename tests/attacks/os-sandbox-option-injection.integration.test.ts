// Attack: bubblewrap option injection through a NUL byte. bwrap reads its options from `--args`
// as NUL-separated words, so a NUL in the working directory or in an environment variable *name*
// used to end that word and start options of the caller's choosing: `--ro-bind <host dir> <path in
// the workspace>` mounted host paths (the host's /etc, a directory never granted) into the run.
// Now every caller-supplied value is checked once before planning, and the words travel
// length-prefixed. Real bubblewrap; fails (never skips) without it.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '@trust/os-sandbox';

/** What an attempt came to: refused before anything ran (its code), or what the run printed. */
async function attempt(
  sb: Sandbox,
  argv: string[],
  options: Record<string, unknown>,
): Promise<{ refused: string } | { printed: string }> {
  let p: Awaited<ReturnType<Sandbox['spawn']>>;
  try {
    p = await sb.spawn(argv, options);
  } catch (err) {
    return { refused: (err as { code: string }).code };
  }
  const chunks: Buffer[] = [];
  for await (const c of p.stdout) chunks.push(Buffer.from(c as Buffer));
  await p.exit;
  return { printed: Buffer.concat(chunks).toString('utf8') };
}

describe('attack: NUL bytes in cwd or env names become bubblewrap options', () => {
  let ws: string;
  let hostDir: string;
  let sb: Sandbox;
  const marker = `HOST-ONLY-${process.pid}`;

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'trust-inject-ws-')));
    // A host directory the policy never grants (its name avoids secret-looking words, so the
    // env-name attempt is judged on its bytes only).
    hostDir = realpathSync(mkdtempSync(join(tmpdir(), 'trust-inject-host-')));
    writeFileSync(join(hostDir, 'note.txt'), marker);
    sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] }, { prestart: false });
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(ws, { recursive: true, force: true });
    rmSync(hostDir, { recursive: true, force: true });
  });

  it('a NUL in cwd is refused before planning; the host /etc is not mounted into the workspace', async () => {
    // Before: `--chdir <ws>/ --ro-bind /etc <ws>/hostetc`, and cat printed the host's /etc/passwd.
    const cwd = `${ws}/\0--ro-bind\0/etc\0${ws}/hostetc`;
    const got = await attempt(sb, ['/bin/sh', '-c', `cat ${ws}/hostetc/passwd 2>/dev/null; echo end`], { cwd });
    expect(got).toEqual({ refused: 'SANDBOX_CWD_INVALID' });
    expect(readFileSync('/etc/passwd', 'utf8').length).toBeGreaterThan(0);
    expect(existsSync(join(ws, 'hostetc'))).toBe(false);
  });

  it('a NUL in an env name is refused before planning; no host directory is mounted', async () => {
    // Before: `--setenv A v --ro-bind <hostDir> <ws>/leak --setenv B x`, and cat printed the marker.
    const name = `A\0v\0--ro-bind\0${hostDir}\0${ws}/leak\0--setenv\0B`;
    const got = await attempt(sb, ['/bin/sh', '-c', `cat ${ws}/leak/note.txt 2>/dev/null; echo end`], {
      env: { [name]: 'x' },
    });
    expect(got).toEqual({ refused: 'SANDBOX_ENV_INVALID' });
    expect(existsSync(join(ws, 'leak'))).toBe(false);
  });

  it('the same values as plain strings still work where they are legal (argv and env values)', async () => {
    const got = await attempt(sb, ['/bin/sh', '-c', 'printf "%s|%s" "$1" "$V"', 'sh', '--ro-bind /etc x'], {
      env: { V: '--bind / /' },
      cwd: ws,
    });
    expect(got).toEqual({ printed: '--ro-bind /etc x|--bind / /' });
  });
});
