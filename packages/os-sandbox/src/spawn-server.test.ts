// The spawn server's request encoding, byte for byte (the server's side of it is exercised in
// spawn-server.integration.test.ts).
import { describe, expect, it } from 'vitest';
import { encodeCommand, encodeRequest } from './spawn-server.js';

describe('encodeRequest', () => {
  it('writes a prepare request as a run request with kind P', () => {
    const r = { args: ['--'], stdin: false, stdout: true, stderr: false };
    const prepared = encodeRequest(5, r, 'P');
    expect(prepared[0]).toBe(0x50);
    expect(prepared.subarray(1)).toEqual(encodeRequest(5, r).subarray(1));
  });

  it('lays out kind, id, length, the NUL-terminated arguments (UTF-8), both blobs and the pipe flags', () => {
    const got = encodeRequest(0x01020304, { args: ['--', 'é'], fd3: Uint8Array.of(7, 8), fd4: Uint8Array.of(9), stdin: true, stdout: false, stderr: true });
    // prettier-ignore
    const body = [
      2, 0, 0, 0, 0x2d, 0x2d, 0, 0xc3, 0xa9, 0, // argc, "--\0", "é\0"
      2, 0, 0, 0, 7, 8,                          // fd 3
      1, 0, 0, 0, 9,                             // fd 4
      1 | 4,                                     // stdin and stderr pipes
    ];
    expect([...got]).toEqual([0x52, 4, 3, 2, 1, body.length, 0, 0, 0, ...body]);
  });

  it('encodes absent blobs as empty and no pipes as 0', () => {
    const got = encodeRequest(1, { args: [], stdin: false, stdout: false, stderr: false });
    expect([...got]).toEqual([0x52, 1, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('sizes a long request exactly', () => {
    const args = Array.from({ length: 300 }, (_, i) => `--pin f /srv/ü/${i}`);
    const fd3 = new Uint8Array(5000).fill(1);
    const got = encodeRequest(2, { args, fd3, stdin: false, stdout: true, stderr: false });
    const argBytes = args.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
    expect(got.length).toBe(9 + 4 + argBytes + 4 + 5000 + 4 + 0 + 1);
    expect(got.readUInt32LE(5)).toBe(got.length - 9);
    expect(got[got.length - 1]).toBe(2);
  });
});

describe('encodeCommand', () => {
  it('lays out G, id, length, then argc and the words, envc and NAME=VALUE entries, and the directory (UTF-8, NUL-terminated)', () => {
    const got = encodeCommand(7, { argv: ['/bin/echo', 'ü'], env: { A: '1' }, cwd: '/w' });
    // prettier-ignore
    const body = [
      2, 0, 0, 0, ...Buffer.from('/bin/echo\0'), 0xc3, 0xbc, 0, // argc, words
      1, 0, 0, 0, ...Buffer.from('A=1\0'),                     // envc, entries
      ...Buffer.from('/w\0'),                                   // working directory
    ];
    expect([...got]).toEqual([0x47, 7, 0, 0, 0, body.length, 0, 0, 0, ...body]);
  });

  it('encodes an empty environment as a zero count', () => {
    const got = encodeCommand(1, { argv: ['x'], env: {}, cwd: '/' });
    expect([...got.subarray(9)]).toEqual([1, 0, 0, 0, 0x78, 0, 0, 0, 0, 0, 0x2f, 0]);
  });
});
