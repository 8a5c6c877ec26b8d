// The spawn server's wire format (version 1), byte for byte (the server's decoder is exercised in
// spawn-server.integration.test.ts and fuzzed in wire-fuzz.integration.test.ts).
import { describe, expect, it } from 'vitest';
import {
  encodeAck,
  encodeBwrapArgs,
  encodeCommand,
  encodeKill,
  encodeRequest,
  WIRE_HEADER_BYTES,
  WIRE_VERSION,
} from './launcher-wire.js';

const le = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const str = (s: string): number[] => [...le(Buffer.byteLength(s)), ...Buffer.from(s)];

describe('encodeRequest', () => {
  it('writes a prepare request as a run request with kind P', () => {
    const r = { args: ['--'], stdin: false, stdout: true, stderr: false };
    const prepared = encodeRequest(5, r, 'P');
    expect(prepared[1]).toBe(0x50);
    expect(prepared.subarray(2)).toEqual(encodeRequest(5, r).subarray(2));
  });

  it(
    'lays out version, kind, id, length, then length-prefixed ' +
      'arguments, options, the seccomp program and the pipe flags',
    () => {
      const got = encodeRequest(0x01020304, {
        args: ['--', 'é'],
        options: ['--chdir', '/w'],
        fd4: Uint8Array.of(9),
        stdin: true,
        stdout: false,
        stderr: true,
      });
      // prettier-ignore
      const body = [
        ...le(2),
        ...str('--'),
        ...str('é'), // launcher arguments
        ...le(2),
        ...str('--chdir'),
        ...str('/w'), // bwrap options
        ...le(1),
        9, // seccomp program
        1 | 4, // stdin and stderr pipes
      ];
      expect([...got]).toEqual([WIRE_VERSION, 0x52, 4, 3, 2, 1, ...le(body.length), ...body]);
    },
  );

  it('encodes absent options and program as empty and no pipes as 0', () => {
    const got = encodeRequest(1, { args: [], stdin: false, stdout: false, stderr: false });
    expect([...got]).toEqual([1, 0x52, ...le(1), ...le(13), ...le(0), ...le(0), ...le(0), 0]);
  });

  it('sizes a long request exactly', () => {
    const args = Array.from({ length: 300 }, (_, i) => `--pin f /srv/ü/${i}`);
    const got = encodeRequest(2, { args, stdin: false, stdout: true, stderr: false });
    const argBytes = args.reduce((n, a) => n + 4 + Buffer.byteLength(a), 0);
    expect(got.length).toBe(WIRE_HEADER_BYTES + 4 + argBytes + 4 + 4 + 1);
    expect(got.readUInt32LE(6)).toBe(got.length - WIRE_HEADER_BYTES);
    expect(got[got.length - 1]).toBe(2);
  });

  it.each([
    ['a launcher argument', { args: ['--', 'a\0b'] }],
    ['a bwrap option', { args: [], options: ['--chdir', '/proj/\0--ro-bind\0/etc\0/proj/etc'] }],
  ])('refuses %s that holds a NUL (SANDBOX_WIRE_INVALID)', (_, r) => {
    expect(() => encodeRequest(1, { ...r, stdin: false, stdout: false, stderr: false })).toThrowTrustError(
      'SANDBOX_WIRE_INVALID',
    );
  });
});

describe('encodeCommand', () => {
  it('lays out G, id, length, then the argv words, the environment as name/value pairs and the directory', () => {
    const got = encodeCommand(7, { argv: ['/bin/echo', 'ü'], env: { A: '1' }, cwd: '/w' });
    const body = [...le(2), ...str('/bin/echo'), ...str('ü'), ...le(1), ...str('A'), ...str('1'), ...str('/w')];
    expect([...got]).toEqual([1, 0x47, ...le(7), ...le(body.length), ...body]);
  });

  it.each([
    ['an environment name', { argv: ['x'], env: { 'A\0--ro-bind': '1' }, cwd: '/' }],
    ['an environment value', { argv: ['x'], env: { A: '1\0' }, cwd: '/' }],
    ['the working directory', { argv: ['x'], env: {}, cwd: '/w\0--bind\0/\0/' }],
  ])('refuses %s holding a NUL', (_, c) => {
    expect(() => encodeCommand(1, c)).toThrowTrustError('SANDBOX_WIRE_INVALID');
  });
});

describe('acknowledgement, kill and bwrap --args', () => {
  it('A has an empty body, K one signal byte', () => {
    expect([...encodeAck(9)]).toEqual([1, 0x41, ...le(9), ...le(0)]);
    expect([...encodeKill(9, 15)]).toEqual([1, 0x4b, ...le(9), ...le(1), 15]);
  });

  it("writes bubblewrap's NUL-terminated words and refuses a word holding a NUL", () => {
    expect(encodeBwrapArgs(['--chdir', '/w']).toString()).toBe('--chdir\0/w\0');
    expect(() => encodeBwrapArgs(['--chdir', '/w\0--bind\0/\0/'])).toThrowTrustError('SANDBOX_WIRE_INVALID');
  });
});
