import { describe, expect, it } from 'vitest';
import { checkWorkspaceOptions } from '../options.js';
import { createStudioSandbox, type StudioSandboxOptions } from './studio-sandbox.js';
import { studioSandboxOptionsSchema } from './studio-sandbox-options.js';

// createStudioSandbox checks its options once with a strict schema; nothing starts before a run
// is asked for, so a valid set is checked here without bubblewrap.
const valid = (extra: Record<string, unknown> = {}) =>
  ({ runsFile: 'runs.jsonl', env: {}, launcherCacheDir: 'cache', ...extra }) as StudioSandboxOptions;

describe('createStudioSandbox options', () => {
  it('accepts valid options, and the checked object is the one given', async () => {
    const onRecordError = () => undefined;
    const options = valid({ maxConcurrent: 2, caps: { maxTimeMs: 1000, maxOutputBytes: 1024 }, onRecordError });
    expect(checkWorkspaceOptions('createStudioSandbox', studioSandboxOptionsSchema, options)).toBe(options);
    const sandbox = createStudioSandbox(options);
    expect(sandbox.list()).toEqual([]);
    await sandbox.close();
  });

  it('accepts the process environment itself (not a plain object)', async () => {
    const sandbox = createStudioSandbox(valid({ env: process.env }));
    await sandbox.close();
  });

  it('refuses an unknown key with a did-you-mean hint', () => {
    expect(() => createStudioSandbox(valid({ maxConcurent: 2 }))).toRefuseOptions(
      'WORKSPACE_OPTIONS_INVALID',
      [{ code: 'WORKSPACE_OPTIONS_UNKNOWN_KEY', path: 'maxConcurent', hint: 'did you mean "maxConcurrent"?' }],
      'createStudioSandbox',
    );
  });

  it('refuses wrong values with the field example, every problem at once', () => {
    expect(() => createStudioSandbox(valid({ maxKept: 0, caps: { maxTimeMs: 1000 } }))).toRefuseOptions(
      'WORKSPACE_OPTIONS_INVALID',
      [
        { code: 'WORKSPACE_OPTIONS_INVALID', path: 'caps.maxOutputBytes', hint: 'e.g. 262144' },
        { code: 'WORKSPACE_OPTIONS_INVALID', path: 'maxKept', hint: 'e.g. 50' },
      ],
    );
  });
});

describe('studio sandbox refusals carry control codes', () => {
  it('an unknown run id is CONTROL_NOT_FOUND with a hint', async () => {
    const sandbox = createStudioSandbox(valid());
    expect(() => sandbox.get('nope')).toThrowTrustError('CONTROL_NOT_FOUND');
    await expect(sandbox.kill('nope')).rejects.toHaveTrustCode('CONTROL_NOT_FOUND');
    await sandbox.close();
  });
});
