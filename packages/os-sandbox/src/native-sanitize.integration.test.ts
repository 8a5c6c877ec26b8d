// The launcher's request decoders under AddressSanitizer and UndefinedBehaviorSanitizer: a fuzz
// harness (native/fuzz/wire-fuzz.c) fed mutations of messages this package's own encoder writes,
// for a bounded number of iterations, and the whole launcher built with the sanitizers serving
// well-formed and malformed frames. Needs gcc with libasan/libubsan; fails (never skips) without.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAck, encodeCommand, encodeKill, encodeRequest, WIRE_VERSION } from './launcher-wire.js';
import { launcherSourcePath } from './launcher.js';
import { freshDir } from './test-helpers.js';

const CC = '/usr/bin/gcc';
const SANITIZE = ['-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer'];
const NATIVE = dirname(launcherSourcePath());
/** Sanitizer reports abort; leaks in processes that exec or _exit are not findings here. */
const SAN_ENV = {
  PATH: '/usr/bin:/bin',
  ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
  UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
};

// Each test compiles with the sanitizers (seconds on a loaded machine): hang guards, not limits.
describe("the launcher's decoders under sanitizers", { timeout: 180_000 }, () => {
  let dir: string;
  beforeAll(() => {
    expect(existsSync(CC), 'gcc is needed to build the sanitizer targets').toBe(true);
    dir = freshDir('trust-sanitize-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the fuzz harness holds for 150,000 mutated requests and commands (ASan + UBSan)', () => {
    const bin = join(dir, 'wire-fuzz');
    execFileSync(CC, [...SANITIZE, '-o', bin, join(NATIVE, 'fuzz', 'wire-fuzz.c'), join(NATIVE, 'wire.c')], {
      stdio: 'pipe',
    });
    const seeds = [
      encodeRequest(1, {
        args: ['--close-from', '6', '--lifeline', '5', '--', '/usr/bin/bwrap', '--args', '3', '--', '/bin/true'],
        options: ['--unshare-all', '--chdir', '/w', '--setenv', 'A', 'é'],
        fd4: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8),
        stdin: true,
        stdout: true,
        stderr: true,
      }),
      encodeRequest(2, { args: [], stdin: false, stdout: false, stderr: false }, 'P'),
      encodeCommand(3, { argv: ['/bin/echo', 'a b', ''], env: { PATH: '/usr/bin', LOG_LEVEL: 'x=y' }, cwd: '/srv/p' }),
      encodeCommand(4, { argv: ['x'], env: {}, cwd: '/' }),
      encodeAck(5),
      encodeKill(6, 15),
    ].map((m, i) => {
      const f = join(dir, `seed-${i}`);
      writeFileSync(f, m);
      return f;
    });
    const out = execFileSync(bin, ['150000', '20261205', ...seeds], {
      env: SAN_ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toBe('wire-fuzz: 150000 inputs, every one held\n');
  });

  it(
    'the whole launcher, built with the sanitizers, serves a run ' + 'and refuses malformed frames without a report',
    async () => {
      const bin = join(dir, 'launcher-sanitized');
      const units = readdirSync(NATIVE)
        .filter((f) => f.endsWith('.c'))
        .map((f) => join(NATIVE, f));
      execFileSync(CC, [...SANITIZE, '-o', bin, ...units], { stdio: 'pipe' });
      const server = spawn(bin, ['--serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: SAN_ENV });
      let replies = '';
      let errors = '';
      server.stdout.on('data', (c: Buffer) => (replies += c.toString()));
      server.stderr.on('data', (c: Buffer) => (errors += c.toString()));
      const u32 = (n: number): Buffer => Buffer.from(Uint32Array.of(n).buffer);
      const frame = (id: number, body: Buffer): Buffer =>
        Buffer.concat([Buffer.from([WIRE_VERSION, 0x52]), u32(id), u32(body.length), body]);
      server.stdin.write(
        encodeRequest(1, { args: ['--', '/bin/echo', 'served'], stdin: false, stdout: true, stderr: false }),
      );
      server.stdin.write(frame(2, Buffer.concat([u32(1), u32(0xfffffff0), Buffer.from('--')])));
      server.stdin.write(frame(3, Buffer.concat([u32(0x40000000)])));
      server.stdin.write(encodeCommand(4, { argv: ['/bin/true'], env: {}, cwd: '/' }));
      for (let i = 0; i < 1000 && !/^N 4$/m.test(replies); i++) await new Promise((ok) => setTimeout(ok, 10));
      expect(replies).toMatch(/^S 1 \d+ -1 \d+ -1$/m);
      expect(replies).toMatch(/^F 2 22$/m);
      expect(replies).toMatch(/^F 3 22$/m);
      server.stdin.write(encodeAck(1));
      // Another version: the server exits, as for bytes that are not its protocol.
      server.stdin.write(Buffer.concat([Buffer.from([WIRE_VERSION + 1, 0x52]), u32(5), u32(0)]));
      const code = await new Promise<number | null>((ok) => server.once('exit', (c) => ok(c)));
      expect(code).toBe(125);
      expect(errors).not.toMatch(/AddressSanitizer|runtime error|LeakSanitizer/);
    },
  );
});
