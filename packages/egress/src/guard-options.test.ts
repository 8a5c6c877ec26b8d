import { parseCidr } from '@trust/core';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createEgressGuard } from './guard.js';
import { compileGuardOptions, type GuardOptions } from './guard-options.js';

/** The error `createEgressGuard(options)` throws (fails the test when it does not throw). */
const refusal = (options: unknown) => thrownBy(() => createEgressGuard(options as GuardOptions));

describe('guard options (one strict schema)', () => {
  it('refuses an unknown key with "did you mean" and the known options', () => {
    expect(refusal({ mdoe: 'strict' })).toRefuseOptions(
      'EGRESS_OPTIONS_INVALID',
      [
        {
          code: 'EGRESS_OPTIONS_UNKNOWN_KEY',
          path: 'mdoe',
          hint: /did you mean "mode"\?.*known options: mode, protectedPorts/,
        },
      ],
      /^createEgressGuard options are invalid \(1 problem\): mdoe: unknown option "mdoe"/,
    );
  });

  it.each([
    [{ mode: 'open' }, 'mode', /e\.g\. "strict"/],
    [{ protectedPorts: [0] }, 'protectedPorts.0', /e\.g\. \[7385\]/],
    [{ protectedPorts: [7385.5] }, 'protectedPorts.0', /e\.g\. \[7385\]/],
    [{ allowCidrs: ['10.0.0.0/33'] }, 'allowCidrs.0', /"10\.0\.0\.0\/8"/],
    [{ denyCidrs: [{ prefix: 8 }] }, 'denyCidrs.0', /"203\.0\.113\.0\/24"/],
    [{ schemes: ['https'] }, 'schemes.0', /"http:", "https:"/],
    [{ schemes: ['HTTPS:'] }, 'schemes.0', /"http:", "https:"/],
    [{ resolve: 'dns' }, 'resolve', /async \(host\)/],
    [{ resolveTimeoutMs: 0 }, 'resolveTimeoutMs', /e\.g\. 5000/],
    [{ resolveTimeoutMs: 2 ** 31 }, 'resolveTimeoutMs', /e\.g\. 5000/],
    [{ cacheTtlMs: -1 }, 'cacheTtlMs', /0 disables/],
    [{ cacheTtlMs: Number.NaN }, 'cacheTtlMs', /0 disables/],
  ])('%j is refused at %s, with a valid example as hint', (options, path, hint) => {
    expect(refusal(options)).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
      { code: 'EGRESS_OPTIONS_INVALID', path, hint },
    ]);
  });

  it('refuses a value that is not an object', () => {
    expect(() => createEgressGuard('strict' as never)).toThrowTrustError('EGRESS_OPTIONS_INVALID');
  });

  it('reports every problem at once', () => {
    expect(refusal({ mode: 'x', protectedPorts: [0, 70000], cacheTtl: 1, allowCidrs: ['nope'] })).toRefuseOptions(
      'EGRESS_OPTIONS_INVALID',
      [
        { code: 'EGRESS_OPTIONS_INVALID', path: 'allowCidrs.0' },
        { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'cacheTtl' },
        { code: 'EGRESS_OPTIONS_INVALID', path: 'mode' },
        { code: 'EGRESS_OPTIONS_INVALID', path: 'protectedPorts.0' },
        { code: 'EGRESS_OPTIONS_INVALID', path: 'protectedPorts.1' },
      ],
    );
  });

  it('passes valid options unchanged: the resolver kept, CIDR text and values compiled', () => {
    const resolve = async () => ['192.0.2.1'];
    const cidr = parseCidr('fd12::/16');
    if (cidr === undefined) throw new Error('fixture');
    const c = compileGuardOptions({
      mode: 'allow-local',
      protectedPorts: [7385],
      resolve,
      schemes: ['ws:', 'wss:'],
      allowCidrs: ['10.0.0.5', cidr],
      denyCidrs: [],
      resolveTimeoutMs: 250,
      cacheTtlMs: 0,
      // an explicit undefined is an absent option
      ...({ mode: undefined } as object),
    });
    expect(c.mode).toBe('default');
    expect(c.resolve).toBe(resolve);
    expect([...c.protectedPorts]).toEqual([7385]);
    expect(c.schemes).toEqual(['ws:', 'wss:']);
    expect(c.allowCidrs.map((x) => x.text)).toEqual(['10.0.0.5', 'fd12::/16']);
    expect([c.resolveTimeoutMs, c.cacheTtlMs]).toEqual([250, 0]);
  });
});
