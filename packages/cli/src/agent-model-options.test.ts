import { createScriptedProvider } from '@trust/agent-runtime';
import { isTrustError } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { createModelAgentOpener, type ModelAgentOpenerOptions } from './agent-model.js';
import { modelAgentOpenerOptionsSchema } from './agent-model-options.js';
import { checkCliOptions } from './cli-options.js';

// createModelAgentOpener checks its options once with a strict schema.
const scripted = () => createScriptedProvider([]);
const valid = (extra: Record<string, unknown> = {}) =>
  ({ env: { HOME: '/home/u', UNSET: undefined }, scripted, ...extra }) as ModelAgentOpenerOptions;

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('createModelAgentOpener options', () => {
  it('accepts valid options, and the checked object is the one given', () => {
    const protectedPorts = () => [7400];
    const options = valid({ flags: { allowLocal: true }, protectedPorts });
    expect(checkCliOptions('createModelAgentOpener', modelAgentOpenerOptionsSchema, options)).toBe(options);
    const models = createModelAgentOpener(options);
    expect(typeof models.open).toBe('function');
  });

  it('accepts the process environment itself (not a plain object)', () => {
    expect(thrown(() => createModelAgentOpener(valid({ env: process.env })))).toBeUndefined();
  });

  it('refuses an unknown key with a did-you-mean hint', () => {
    const error = thrown(() => createModelAgentOpener(valid({ scripts: scripted })));
    expect(error).toHaveTrustCode('CLI_OPTIONS_INVALID');
    if (!isTrustError(error)) throw new Error('not a TrustError');
    expect(error.message).toContain('createModelAgentOpener');
    expect(error.problems).toEqual([
      expect.objectContaining({
        code: expect.toBeTrustCode('CLI_OPTIONS_UNKNOWN_KEY'),
        path: 'scripts',
        hint: expect.stringContaining('did you mean "scripted"?'),
      }),
    ]);
  });

  it('refuses a misspelt flag inside flags, naming its path', () => {
    const error = thrown(() => createModelAgentOpener(valid({ flags: { allowLocl: true } })));
    expect(isTrustError(error) && error.problems).toEqual([
      expect.objectContaining({ path: 'flags.allowLocl', hint: expect.stringContaining('did you mean "allowLocal"?') }),
    ]);
  });

  it('refuses wrong values with the field example, every problem at once', () => {
    const error = thrown(() => createModelAgentOpener(valid({ env: 'HOME=/home/u', scripted: 'scripted' })));
    expect(error).toHaveTrustCode('CLI_OPTIONS_INVALID');
    if (!isTrustError(error)) throw new Error('not a TrustError');
    expect(error.problems.map((p) => p.path).sort()).toEqual(['env', 'scripted']);
    expect(error.problems.find((p) => p.path === 'env')?.hint).toContain('e.g. process.env');
    expect(error.problems.find((p) => p.path === 'scripted')?.hint).toContain('e.g. () => createScriptedProvider');
  });
});
