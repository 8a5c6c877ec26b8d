import { parseCapabilities } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { inThreadRefusal } from './in-thread-runtime.js';

// Both runtimes' rules, on every runtime: `jspi` stands for what hasJspi() reports.
describe('inThreadRefusal', () => {
  const refusal = (caps: string[], jspi: boolean) => inThreadRefusal('p', parseCapabilities(caps), jspi);

  it('allows a plugin without network on either runtime', () => {
    expect(refusal(['env:A', 'stdout'], false)).toBeUndefined();
    expect(refusal(['env:A', 'stdout'], true)).toBeUndefined();
  });

  it('refuses http without JSPI, naming both ways out', () => {
    const err = refusal(['http'], false);
    expect(err?.code).toBeTrustCode('WASM_ISOLATION_REQUIRED');
    expect(err?.message).toMatch(/network capabilities, which need worker isolation/);
    expect(err?.hint).toMatch(/isolation: "worker"/);
    expect(err?.hint).toMatch(/Node 24/);
  });

  it('allows http with JSPI', () => {
    expect(refusal(['http'], true)).toBeUndefined();
  });

  it.each([[['tcp']], [['udp']], [['network']], [['sockets']], [['http', 'tcp']]])(
    'refuses %j on either runtime',
    (caps) => {
      for (const jspi of [false, true]) {
        const err = refusal(caps, jspi);
        expect(err?.code).toBeTrustCode('WASM_ISOLATION_REQUIRED');
        expect(err?.message).toMatch(/socket capabilities/);
      }
    },
  );
});
