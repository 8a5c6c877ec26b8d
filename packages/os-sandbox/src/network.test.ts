import { describe, expect, it } from 'vitest';
import { allowHosts, createPrincipal, parseCapabilities, type EgressHttpRequest } from '@trust/core';
import { floorGuard, grantedEgress, networkTierPolicy } from './network.js';

const ctx = { principal: createPrincipal('process', 'run-1'), capability: 'http' as const };
const get = (host: string): EgressHttpRequest => ({
  method: 'GET',
  url: `https://${host}/`,
  scheme: 'https:',
  host,
  port: 443,
  path: '/',
  headers: new Headers(),
});
const everything = allowHosts(['api.example.com'], { tcp: true, udp: true });

describe('grantedEgress', () => {
  it('asks the policy about each kind of traffic only when its capability is granted', async () => {
    const httpOnly = grantedEgress(everything, parseCapabilities(['http']));
    expect(await httpOnly.authorizeHttp(get('api.example.com'), ctx)).toMatchObject({ allow: true });
    expect(await httpOnly.authorizeTcp?.({ host: 'api.example.com', port: 22 }, ctx)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SANDBOX_CAPABILITY_MISSING'),
    });
    expect(await httpOnly.authorizeUdp?.({ host: 'api.example.com', port: 53 }, ctx)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SANDBOX_CAPABILITY_MISSING'),
    });

    const udpOnly = grantedEgress(everything, parseCapabilities(['udp']));
    expect(await udpOnly.authorizeHttp(get('api.example.com'), ctx)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SANDBOX_CAPABILITY_MISSING'),
    });
    expect(await udpOnly.authorizeUdp?.({ host: 'api.example.com', port: 53 }, ctx)).toMatchObject({ allow: true });
    expect(await udpOnly.authorizeUdp?.({ host: 'other.example.com', port: 53 }, ctx)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('EGRESS_HOST_NOT_ALLOWED'),
    });
  });

  it('keeps a missing policy method missing (the proxy then denies), and keeps the name and role', () => {
    const wrapped = grantedEgress(allowHosts(['api.example.com']), parseCapabilities(['tcp', 'udp']));
    expect(wrapped.authorizeTcp).toBeUndefined();
    expect(wrapped.authorizeUdp).toBeUndefined();
    expect(wrapped.name).toBe('allow-hosts');
    expect(wrapped.role).toBe('gate');
  });

  it('grants every kind to the coarse tier', async () => {
    const coarse = grantedEgress(networkTierPolicy(), parseCapabilities(['network']));
    expect(await coarse.authorizeHttp(get('example.org'), ctx)).toMatchObject({ allow: true, rule: 'network-tier' });
    expect(await coarse.authorizeTcp?.({ host: 'example.org', port: 22 }, ctx)).toMatchObject({ allow: true });
    expect(await coarse.authorizeUdp?.({ host: 'example.org', port: 123 }, ctx)).toMatchObject({ allow: true });
  });
});

describe('floorGuard', () => {
  it('forces strict mode and drops operator allows, keeping the rest', () => {
    const resolve = async () => ['192.0.2.1'];
    const g = floorGuard({
      mode: 'allow-local',
      allowCidrs: ['10.0.0.0/8'],
      denyCidrs: ['203.0.113.0/24'],
      protectedPorts: [7385],
      resolve,
    });
    expect(g).toEqual({ mode: 'strict', denyCidrs: ['203.0.113.0/24'], protectedPorts: [7385], resolve });
    expect(floorGuard(undefined)).toEqual({ mode: 'strict' });
  });
});
