import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { openAdf } from '@trust/agent-runtime';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrustError } from '@trust/core';
import { DEMO_AGENT, ensureDemoWorkspace } from './demo-workspace.js';

const dir = mkdtempSync(join(tmpdir(), 'trust-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ensureDemoWorkspace', () => {
  it('still creates the demo when the sample sandbox run cannot start, and says why and how to fix it', async () => {
    const lines: string[] = [];
    const runsFile = join(dir, 'sandbox-runs.jsonl');
    const { layout, created } = await ensureDemoWorkspace(join(dir, 'demo'), (m) => lines.push(m), {
      runsFile,
      env: {},
      launcherCacheDir: join(dir, 'cache'),
      createSandbox: async () => {
        throw new TrustError('SANDBOX_UNAVAILABLE', 'bubblewrap is not installed', {
          hint: 'apt-get install bubblewrap',
        });
      },
    });
    expect(created).toBe(true);
    expect(existsSync(layout.sandboxPolicy)).toBe(true);
    expect(lines).toContain('  sample sandbox run skipped: bubblewrap is not installed (apt-get install bubblewrap)');
    expect(existsSync(runsFile)).toBe(false);
    // the demo agent has its identity from its first moment
    const adf = openAdf(join(layout.agents, `${DEMO_AGENT}.adf`), { readonly: true });
    expect(adf.meta.get('adf_did')).toMatch(/^did:key:z6Mk/);
    adf.close();
    expect(statSync(join(layout.keys, 'identity-keys.json')).mode & 0o777).toBe(0o600);
  });
});
