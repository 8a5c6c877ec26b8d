import { describe, expect, it } from 'vitest';
import { parseCapabilities } from '@trust/core';
import { planImports } from './import-plan.js';

describe('planImports', () => {
  it('plans deny-all for an empty set', () => {
    expect(
      planImports({
        pluginId: 'p',
        caps: parseCapabilities([]),
        hostEnv: { SECRET: 'x' },
        args: ['-v'],
        brokeredNetwork: true,
      }),
    ).toMatchInlineSnapshot(`
      {
        "args": [],
        "coarse": false,
        "env": [],
        "fsRoots": [],
        "http": false,
        "pluginId": "p",
        "preopens": [],
        "stderr": "discard",
        "stdin": "closed",
        "stdout": "discard",
        "tcp": false,
        "udp": false,
      }
    `);
  });

  it('serves only granted, set variables, pinned dirs, and manifest args', () => {
    const plan = planImports({
      pluginId: 'p',
      caps: parseCapabilities(['env:A', 'env:UNSET', 'fs:ro:/data', 'fs:rw:/work', 'args', 'stdout', 'http']),
      hostEnv: { A: '1', B: '2' },
      args: ['--x'],
      pinnedDirs: [
        { path: '/work', fd: 12 },
        { path: '/data', fd: 11 },
      ],
      brokeredNetwork: true,
    });
    expect(plan.env).toEqual([['A', '1']]);
    expect(plan.preopens).toEqual([
      { guestPath: '/data', hostPath: '/data', mode: 'ro', fd: 11 },
      { guestPath: '/work', hostPath: '/work', mode: 'rw', fd: 12 },
    ]);
    expect(plan.args).toEqual(['--x']);
    expect([plan.stdout, plan.stderr, plan.http, plan.tcp]).toEqual(['capture', 'discard', true, false]);
  });

  it('refuses an fs grant that was not pinned at load', () => {
    expect(() =>
      planImports({
        pluginId: 'p',
        caps: parseCapabilities(['fs:ro:/data']),
        hostEnv: {},
        pinnedDirs: [],
        brokeredNetwork: false,
      }),
    ).toThrowTrustError('WASM_FS_GRANT_INVALID');
  });
});
