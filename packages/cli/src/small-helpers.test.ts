import { describe, expect, it } from 'vitest';
import { parsePortList } from './ports.js';
import { parseResolveOverrides } from './resolve-overrides.js';
import { trustHome } from './trust-home.js';
import { passthroughCode } from './commands/sandbox.js';
import { parseJsonFile } from './read-input-file.js';

describe('parsePortList', () => {
  it('accepts repeated and comma-separated ports', () => {
    expect(parsePortList(['7385', '80,443'], 'protect-port')).toEqual([7385, 80, 443]);
    expect(parsePortList([], 'protect-port')).toEqual([]);
  });
  it.each(['0', '65536', 'http', '-1', '1.5', ''])('rejects %j with a usage error', (bad) => {
    expect(() => parsePortList([bad], 'protect-port')).toThrow(
      expect.objectContaining({ code: expect.toBeTrustCode('CLI_USAGE_INVALID_VALUE'), exitCode: 2 }),
    );
  });
});

describe('parseResolveOverrides', () => {
  it('answers listed names (case and trailing dot ignored) and fails the rest, never using DNS', async () => {
    const resolve = parseResolveOverrides(['api.test=10.0.0.5,10.0.0.6', 'API.test=::1']);
    expect(await resolve?.('Api.Test.')).toEqual(['10.0.0.5', '10.0.0.6', '::1']);
    await expect(resolve?.('other.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(parseResolveOverrides([])).toBeUndefined();
  });
  it.each(['api.test', '=1.2.3.4', 'api.test='])('rejects %j', (bad) => {
    expect(() => parseResolveOverrides([bad])).toThrow(
      expect.objectContaining({ code: expect.toBeTrustCode('CLI_USAGE_INVALID_VALUE') }),
    );
  });
});

describe('trustHome', () => {
  it('prefers TRUST_HOME, then HOME/.trust', () => {
    expect(trustHome({ TRUST_HOME: '/srv/t' })).toBe('/srv/t');
    expect(trustHome({ HOME: '/home/u' })).toBe('/home/u/.trust');
  });
});

describe('passthroughCode', () => {
  it.each([
    [{ code: 0, signal: null, timedOut: false }, 0],
    [{ code: 3, signal: null, timedOut: false }, 3],
    [{ code: null, signal: 'SIGKILL', timedOut: true }, 124],
    [{ code: null, signal: 'SIGTERM', timedOut: false }, 143],
    [{ code: null, signal: 'SIGSEGV', timedOut: false }, 139],
  ])('%j → %i', (exit, expected) => {
    expect(passthroughCode(exit)).toBe(expected);
  });
});

describe('parseJsonFile', () => {
  it('names the line and column and does not quote the text', () => {
    try {
      parseJsonFile('{\n  "v": 1,\n  "secret": "hunter2" oops\n}', 'p.json', 'policy file');
      expect.unreachable();
    } catch (e) {
      expect(e).toHaveTrustCode('CLI_FILE_INVALID_JSON');
      expect((e as Error).message).toMatch(/at line 3, column \d+/);
      expect((e as Error).message).not.toContain('hunter2');
    }
  });
});
