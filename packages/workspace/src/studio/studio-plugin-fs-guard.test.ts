import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { TrustError } from '@trust/core';
import { pinGrantDirs } from '@trust/wasm-host';
import { workspaceLayout } from '../demo/demo-workspace.js';
import { studioFsGuard, workspaceControlPaths, type StudioControlPaths } from './studio-plugin-fs-guard.js';

// Real directories opened by the plugin host's own pinning; the guard judges those descriptors.
const base = realpathSync(mkdtempSync(join(tmpdir(), 'studio-fs-guard-unit-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const ws = join(base, 'ws');
const layout = workspaceLayout(ws, false);
for (const d of [layout.keys, layout.plugins, layout.agents, join(ws, 'data', 'x'), join(base, 'elsewhere', 'p')])
  mkdirSync(d, { recursive: true });
writeFileSync(join(ws, 'egress-policy.json'), '{}');

/** The error code of pinning `dir` under the guard, or 'allowed'; anything but a TrustError fails the test. */
function verdict(dir: string, control: StudioControlPaths = workspaceControlPaths(layout)): string {
  try {
    pinGrantDirs([{ mode: 'rw', path: dir }], studioFsGuard(control)).close();
    return 'allowed';
  } catch (e) {
    if (e instanceof TrustError) return e.code;
    throw e;
  }
}

describe('studioFsGuard', () => {
  it.each([
    ['/', 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [base, 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [ws, 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [layout.keys, 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [layout.plugins, 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [layout.agents, 'STUDIO_PLUGIN_GRANT_COVERS_CONTROL'],
    [join(ws, 'data'), 'allowed'],
    [join(ws, 'data', 'x'), 'allowed'],
    [join(base, 'elsewhere'), 'allowed'],
  ])('%s: %s', (dir, expected) => {
    expect(verdict(dir)).toBe(expected);
  });

  it('refuses a folder inside a sealed one, however deep', () => {
    mkdirSync(join(layout.plugins, 'a', 'b'), { recursive: true });
    expect(verdict(join(layout.plugins, 'a', 'b'))).toBeTrustCode('STUDIO_PLUGIN_GRANT_COVERS_CONTROL');
  });

  it('a control file that does not exist yet is guarded at the folder where it would be created', () => {
    const control = {
      exposed: [{ label: 'future log', path: join(base, 'elsewhere', 'logs', 'x.jsonl') }],
      sealed: [],
    };
    expect(verdict(join(base, 'elsewhere'), control)).toBeTrustCode('STUDIO_PLUGIN_GRANT_COVERS_CONTROL');
    expect(verdict(join(base, 'elsewhere', 'p'), control)).toBe('allowed');
  });

  it('a control file that is a symlink is guarded at both ends (the link and its target)', () => {
    mkdirSync(join(base, 'target-dir'));
    writeFileSync(join(base, 'target-dir', 'policy.json'), '{}');
    mkdirSync(join(base, 'link-dir'));
    symlinkSync(join(base, 'target-dir', 'policy.json'), join(base, 'link-dir', 'policy.json'));
    const control = { exposed: [{ label: 'policy', path: join(base, 'link-dir', 'policy.json') }], sealed: [] };
    expect(verdict(join(base, 'target-dir'), control)).toBeTrustCode('STUDIO_PLUGIN_GRANT_COVERS_CONTROL');
    expect(verdict(join(base, 'link-dir'), control)).toBeTrustCode('STUDIO_PLUGIN_GRANT_COVERS_CONTROL');
  });

  it('names the control path and says to grant a narrower folder', () => {
    const err = thrownBy(() =>
      pinGrantDirs([{ mode: 'rw', path: ws }], studioFsGuard(workspaceControlPaths(layout))).close(),
    );
    expect(err.message).toContain(`fs grant ${ws} holds the studio's workspace`);
    expect(err.hint).toMatch(/narrower directory/);
  });
});
