import { describe, expect, it } from 'vitest';
import { createEgressGuard } from './guard.js';
import { createEgressHttpAgent, createEgressHttpsAgent } from './node-agent.js';

describe('createEgressHttpAgent / createEgressHttpsAgent options', () => {
  it('checks guard options strictly: an unknown key is refused with "did you mean"', () => {
    for (const create of [createEgressHttpAgent, createEgressHttpsAgent]) {
      expect(() => create({ guard: { mdoe: 'strict' } as never })).toRefuseOptions('EGRESS_OPTIONS_INVALID', [
        { code: 'EGRESS_OPTIONS_UNKNOWN_KEY', path: 'mdoe', hint: /did you mean "mode"\?/ },
      ]);
    }
  });

  it('refuses an invalid guard value', () => {
    expect(() => createEgressHttpAgent({ guard: { mode: 'open' as never } })).toThrowTrustError(
      'EGRESS_OPTIONS_INVALID',
    );
  });

  it("passes Node's own agent options through, and takes a compiled guard or guard options", () => {
    const agents = [
      createEgressHttpAgent({ guard: createEgressGuard({ mode: 'strict' }), keepAlive: true, maxSockets: 4 }),
      createEgressHttpsAgent({ guard: { mode: 'strict' }, keepAlive: true }),
      createEgressHttpAgent(),
    ];
    expect(agents[0]?.maxSockets).toBe(4);
    for (const agent of agents) agent.destroy();
  });
});
