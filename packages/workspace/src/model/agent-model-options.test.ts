import { createScriptedProvider } from '@trust/agent-runtime';
import { describe, expect, it } from 'vitest';
import { createModelAgentOpener, type ModelAgentOpenerOptions } from './agent-model.js';
import { modelAgentOpenerOptionsSchema } from './agent-model-options.js';
import { checkWorkspaceOptions } from '../options.js';

// createModelAgentOpener checks its options once with a strict schema.
const scripted = () => createScriptedProvider([]);
const valid = (extra: Record<string, unknown> = {}) =>
  ({ env: { HOME: '/home/u', UNSET: undefined }, scripted, ...extra }) as ModelAgentOpenerOptions;

describe('createModelAgentOpener options', () => {
  it('accepts valid options, and the checked object is the one given', () => {
    const protectedPorts = () => [7400];
    const options = valid({ flags: { allowLocal: true }, protectedPorts });
    expect(checkWorkspaceOptions('createModelAgentOpener', modelAgentOpenerOptionsSchema, options)).toBe(options);
    const models = createModelAgentOpener(options);
    expect(typeof models.open).toBe('function');
  });

  it('accepts the process environment itself (not a plain object)', () => {
    expect(() => createModelAgentOpener(valid({ env: process.env }))).not.toThrow();
  });

  it('refuses an unknown key with a did-you-mean hint', () => {
    expect(() => createModelAgentOpener(valid({ scripts: scripted }))).toRefuseOptions(
      'WORKSPACE_OPTIONS_INVALID',
      [{ code: 'WORKSPACE_OPTIONS_UNKNOWN_KEY', path: 'scripts', hint: 'did you mean "scripted"?' }],
      'createModelAgentOpener',
    );
  });

  it('refuses a misspelt flag inside flags, naming its path', () => {
    expect(() => createModelAgentOpener(valid({ flags: { allowLocl: true } }))).toRefuseOptions(
      'WORKSPACE_OPTIONS_INVALID',
      [{ code: 'WORKSPACE_OPTIONS_UNKNOWN_KEY', path: 'flags.allowLocl', hint: 'did you mean "allowLocal"?' }],
    );
  });

  it('refuses wrong values with the field example, every problem at once', () => {
    expect(() => createModelAgentOpener(valid({ env: 'HOME=/home/u', scripted: 'scripted' }))).toRefuseOptions(
      'WORKSPACE_OPTIONS_INVALID',
      [
        { code: 'WORKSPACE_OPTIONS_INVALID', path: 'env', hint: 'e.g. process.env' },
        { code: 'WORKSPACE_OPTIONS_INVALID', path: 'scripted', hint: 'e.g. () => createScriptedProvider' },
      ],
    );
  });
});
