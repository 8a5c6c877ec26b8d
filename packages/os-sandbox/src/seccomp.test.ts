import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, SECCOMP_BLOCKED, seccompArchOf } from './seccomp.js';

/** Decodes the program and runs it like the kernel would, for one (arch, nr, arg1). */
function evaluate(
  prog: Buffer,
  data: { arch: number; nr: number; arg0?: number; arg1?: number; arg2?: number },
): number {
  let acc = 0;
  for (let pc = 0; pc * 8 < prog.length; ) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) {
      acc =
        k === 0
          ? data.nr
          : k === 4
            ? data.arch
            : k === 16
              ? (data.arg0 ?? 0)
              : k === 24
                ? (data.arg1 ?? 0)
                : k === 32
                  ? (data.arg2 ?? 0)
                  : NaN;
      pc++;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x35) pc += 1 + (acc >= k ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const X64 = 0xc000003e;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

describe('buildSeccompFilter', () => {
  const x64 = buildSeccompFilter('x64');
  it.each([
    ['read', 0, ALLOW],
    ['socket', 41, ALLOW],
    ['connect', 42, ALLOW],
    ['clone', 56, ALLOW],
    ['ptrace', 101, EPERM],
    ['io_uring_setup', 425, EPERM],
    ['mount', 165, EPERM],
    ['unshare', 272, EPERM],
    ['bpf', 321, EPERM],
    ['x32 read', 0x40000000, ENOSYS],
  ])('x64 %s → %s', (_name, nr, expected) => {
    expect(evaluate(x64, { arch: X64, nr })).toBe(expected);
  });

  it('blocks TIOCSTI and TIOCLINUX but no other ioctl', () => {
    expect(evaluate(x64, { arch: X64, nr: 16, arg1: 0x5412 })).toBe(EPERM);
    expect(evaluate(x64, { arch: X64, nr: 16, arg1: 0x541c })).toBe(EPERM);
    expect(evaluate(x64, { arch: X64, nr: 16, arg1: 0x5401 })).toBe(ALLOW); // TCGETS
  });

  it.each([
    ['AF_VSOCK', 40, 0, false, EPERM],
    ['AF_VSOCK with netlink route allowed', 40, 0, true, EPERM],
    ['AF_NETLINK route', 16, 0, false, EPERM],
    ['AF_NETLINK route, allowed', 16, 0, true, ALLOW],
    ['AF_NETLINK audit, route allowed', 16, 9, true, EPERM],
    ['AF_UNIX', 1, 0, false, EPERM],
    ['AF_INET', 2, 0, false, ALLOW],
    ['AF_INET6', 10, 0, false, ALLOW],
  ])('socket(%s) (vsock and netlink socket families)', (_name, family, protocol, allowNetlinkRoute, expected) => {
    const prog = buildSeccompFilter('x64', { allowNetlinkRoute });
    expect(evaluate(prog, { arch: X64, nr: 41, arg0: family, arg2: protocol })).toBe(expected);
    expect(
      evaluate(buildSeccompFilter('arm64', { allowNetlinkRoute }), {
        arch: 0xc00000b7,
        nr: 198,
        arg0: family,
        arg2: protocol,
      }),
    ).toBe(expected);
    expect(evaluate(prog, { arch: X64, nr: 16, arg0: family, arg1: 0x5401 })).toBe(ALLOW); // other syscalls unaffected
  });

  it.each([
    ['socket(AF_UNIX) refused by default', 41, 1, {}, EPERM],
    ['socket(AF_UNIX) allowed with allowUnix', 41, 1, { allowUnix: true }, ALLOW],
    ['socketpair(AF_UNIX) always allowed', 53, 1, {}, ALLOW],
    ['socket(AF_VSOCK) still refused with allowUnix', 41, 40, { allowUnix: true }, EPERM],
    ['socket(AF_NETLINK) still refused with allowUnix', 41, 16, { allowUnix: true }, EPERM],
    ['socket(AF_INET) allowed', 41, 2, {}, ALLOW],
  ])('%s', (_name, nr, family, options, expected) => {
    expect(evaluate(buildSeccompFilter('x64', options), { arch: X64, nr, arg0: family })).toBe(expected);
  });

  it('arm64: socket(AF_UNIX) refused, socketpair allowed', () => {
    const arm = buildSeccompFilter('arm64');
    expect(evaluate(arm, { arch: 0xc00000b7, nr: 198, arg0: 1 })).toBe(EPERM);
    expect(evaluate(arm, { arch: 0xc00000b7, nr: 199, arg0: 1 })).toBe(ALLOW);
  });

  it('answers ENOSYS for a foreign architecture (i386 int 0x80)', () => {
    expect(evaluate(x64, { arch: 0x40000003, nr: 26 })).toBe(ENOSYS);
  });

  it('has an arm64 table for every blocked name and maps process.arch', () => {
    const arm = buildSeccompFilter('arm64');
    expect(evaluate(arm, { arch: 0xc00000b7, nr: 117 })).toBe(EPERM); // ptrace
    expect(evaluate(arm, { arch: 0xc00000b7, nr: 63 })).toBe(ALLOW); // read
    expect(SECCOMP_BLOCKED.length).toBeGreaterThan(30);
    expect(seccompArchOf('x64')).toBe('x64');
    expect(seccompArchOf('ia32')).toBeUndefined();
  });
});
