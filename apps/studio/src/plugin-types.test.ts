import { describe, expect, it } from 'vitest';
import { bytesToBase64, callableExports, pluginRuleSection } from './plugin-types';

describe('callableExports', () => {
  it.each([
    [
      ['add: func(a: u32, b: u32) -> u32', 'hello: func() -> string'],
      ['add', 'hello'],
    ],
    [['env-count: func() -> u32'], ['env-count']],
    [['acme:tools/text-ops@1.0.0', 'record point { x: u32 }'], []],
    [['<img src=x onerror=alert(1)>: func()'], []],
  ])('%j -> %j', (exports, expected) => {
    expect(callableExports(exports)).toEqual(expected);
  });
});

describe('bytesToBase64', () => {
  it('matches Node for an empty, a small and a multi-slice input', () => {
    for (const n of [0, 3, 0x8000 * 2 + 17]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 0xff);
      expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

describe('pluginRuleSection', () => {
  it.each([
    ['egress.http', 'plugins:http.deny', 'http.deny'],
    ['egress.http', 'plugins:http.allow:127.0.0.1', 'http.allow'],
    ['egress.http', 'p:http.inject[2]', 'http.inject.2'],
    ['egress.tcp', 'deny-all', 'tcp.allow'],
    ['egress.http', 'protected-port', undefined],
    ['egress.http', 'block-metadata', 'guard'],
    ['plugin.grant', 'deny-all', undefined],
    ['egress.http', undefined, undefined],
  ])('%s %s -> %s', (action, rule, expected) => {
    expect(pluginRuleSection(action, rule)).toBe(expected);
  });
});
