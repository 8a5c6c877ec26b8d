import { describe, expect, it } from 'vitest';
import { createGuardSettings, evaluateControlRequest } from './request-guard.js';

const settings = createGuardSettings(7385);

describe('evaluateControlRequest', () => {
  it.each([
    ['loopback v4 host', { host: '127.0.0.1:7385' }, '/api/v1/agents', true],
    ['localhost host, any case', { host: 'LocalHost:7385' }, '/', true],
    ['loopback v6 host', { host: '[::1]:7385' }, '/', true],
    ['rebinding name', { host: 'attacker.test:7385' }, '/', 'CONTROL_HOST_NOT_ALLOWED'],
    ['right host, wrong port', { host: '127.0.0.1:80' }, '/', 'CONTROL_HOST_NOT_ALLOWED'],
    ['0.0.0.0 host', { host: '0.0.0.0:7385' }, '/', 'CONTROL_HOST_NOT_ALLOWED'],
    ['no host', {}, '/', 'CONTROL_HOST_NOT_ALLOWED'],
    ['token param', { host: '127.0.0.1:7385' }, '/api/v1/agents?token=x', 'CONTROL_TOKEN_IN_QUERY'],
    ['TOKEN param upper case', { host: '127.0.0.1:7385' }, '/?TOKEN=x', 'CONTROL_TOKEN_IN_QUERY'],
    ['harmless param', { host: '127.0.0.1:7385' }, '/api/v1/events?agent=a1', true],
    ['same origin', { host: '127.0.0.1:7385', origin: 'http://127.0.0.1:7385' }, '/', true],
    [
      'origin of another port',
      { host: '127.0.0.1:7385', origin: 'http://127.0.0.1:8000' },
      '/',
      'CONTROL_CROSS_ORIGIN',
    ],
    [
      'origin via other loopback name',
      { host: '127.0.0.1:7385', origin: 'http://localhost:7385' },
      '/',
      'CONTROL_CROSS_ORIGIN',
    ],
    ['https origin', { host: '127.0.0.1:7385', origin: 'https://127.0.0.1:7385' }, '/', 'CONTROL_CROSS_ORIGIN'],
    ['null origin', { host: '127.0.0.1:7385', origin: 'null' }, '/', 'CONTROL_CROSS_ORIGIN'],
    ['fetch-site none', { host: '127.0.0.1:7385', 'sec-fetch-site': 'none' }, '/', true],
    ['fetch-site same-origin', { host: '127.0.0.1:7385', 'sec-fetch-site': 'same-origin' }, '/', true],
    ['fetch-site same-site', { host: '127.0.0.1:7385', 'sec-fetch-site': 'same-site' }, '/', 'CONTROL_CROSS_ORIGIN'],
    ['fetch-site cross-site', { host: '127.0.0.1:7385', 'sec-fetch-site': 'cross-site' }, '/', 'CONTROL_CROSS_ORIGIN'],
  ] as const)('%s', (_n, headers, url, expected) => {
    const d = evaluateControlRequest({ method: 'GET', url, headers }, settings);
    if (expected === true) expect(d.allow).toBe(true);
    else expect(d).toMatchObject({ allow: false, code: expected });
  });

  it.each([
    ['two Host headers, both allowed', ['Host', '127.0.0.1:7385', 'host', '127.0.0.1:7385'], 'CONTROL_HOST_DUPLICATE'],
    ['an allowed Host, then a foreign one', ['Host', '127.0.0.1:7385', 'HOST', 'evil.test'], 'CONTROL_HOST_DUPLICATE'],
    ['one Host header', ['Host', '127.0.0.1:7385', 'X-Host', 'evil.test'], true],
  ] as const)('%s', (_n, rawHeaders, expected) => {
    const d = evaluateControlRequest(
      { method: 'GET', url: '/', headers: { host: '127.0.0.1:7385' }, rawHeaders },
      settings,
    );
    if (expected === true) expect(d.allow).toBe(true);
    else expect(d).toMatchObject({ allow: false, code: expected });
  });

  it('accepts extra LAN host names only when configured', () => {
    const lan = createGuardSettings(7385, ['studio.lan:7385']);
    expect(evaluateControlRequest({ method: 'GET', url: '/', headers: { host: 'studio.lan:7385' } }, lan).allow).toBe(
      true,
    );
    expect(
      evaluateControlRequest({ method: 'GET', url: '/', headers: { host: 'studio.lan:7385' } }, settings).allow,
    ).toBe(false);
  });
});
