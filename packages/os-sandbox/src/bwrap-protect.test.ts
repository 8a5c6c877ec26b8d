import { describe, expect, it } from 'vitest';
import { overlayArgs } from './bwrap-protect.js';
import { USRMERGE_FACTS, type HostFacts } from './host-facts.js';
import { planSandbox } from './plan.js';

const facts = (paths: HostFacts['paths']): HostFacts => ({
  ...USRMERGE_FACTS,
  paths: { ...USRMERGE_FACTS.paths, ...paths },
});
const linux = (policy: Record<string, unknown>, ctx: Record<string, unknown>) => {
  const plan = planSandbox({ v: 1, ...policy }, ['/bin/true'], 'linux', ctx);
  if (plan.platform !== 'linux') throw new Error('expected a linux plan');
  return plan;
};

describe('protected paths: overlays and named sockets in the plan', () => {
  it('an overlaid root gets pins for its missing names but no host placeholders; another root keeps them', () => {
    const plan = linux(
      { capabilities: ['fs:rw:/w', 'fs:rw:/other'] },
      {
        facts: facts({ '/w': { kind: 'dir' }, '/other': { kind: 'dir' } }),
        pinProtected: true,
        overlay: { roots: [{ root: '/w', workBase: '/tmp/s' }] },
      },
    );
    expect(plan.overlays).toEqual([{ kind: 'rw', root: '/w', workBase: '/tmp/s' }]);
    expect(plan.pins).toContainEqual({ kind: 'f', path: '/w/.mcp.json' });
    expect(plan.pins).toContainEqual({ kind: 'd', path: '/w/.claude' });
    expect(plan.placeholders.some((p) => p.path.startsWith('/w/'))).toBe(false);
    expect(plan.placeholders).toContainEqual({ path: '/other/.mcp.json', type: 'file' });
    expect(plan.socketPins).toEqual([]);
    expect(overlayArgs(plan)).toEqual(['--pin-overlay', '/w', '/tmp/s']);
  });

  it('without pinProtected there is no overlay (bwrap binds need host mount points)', () => {
    const plan = linux(
      { capabilities: ['fs:rw:/w'] },
      { facts: facts({ '/w': { kind: 'dir' } }), overlay: { roots: [{ root: '/w', workBase: '/tmp/s' }] } },
    );
    expect(plan.overlays).toEqual([]);
    expect(plan.placeholders).toContainEqual({ path: '/w/.bashrc', type: 'file' });
  });

  it('overlays read-only grants too, and binds named sockets back over them', () => {
    const plan = linux(
      { capabilities: ['fs:rw:/v/sub', 'fs:ro:/w', 'fs:rw:/x'], unixSockets: ['/w/agent.sock'] },
      {
        facts: facts({ '/w/agent.sock': { kind: 'socket' } }),
        pinProtected: true,
        overlay: {
          roots: [
            { root: '/v/sub', workBase: '/tmp/s' },
            { root: '/x', workBase: '/c' },
          ],
          readOnlyRoots: ['/w'],
        },
      },
    );
    expect(plan.overlays).toEqual(
      expect.arrayContaining([
        { kind: 'ro', root: '/w' },
        { kind: 'rw', root: '/x', workBase: '/c' },
        { kind: 'rw', root: '/v/sub', workBase: '/tmp/s' },
      ]),
    );
    expect(plan.overlays).toHaveLength(3);
    expect(plan.socketPins).toEqual(['/w/agent.sock']);
    expect(plan.options.join(' ')).toContain('--ro-bind /w/agent.sock /w/agent.sock');
  });

  it.each([
    ['missing', { kind: 'missing' }],
    ['a symlink', { kind: 'symlink', target: '/elsewhere.sock' }],
    ['a regular file', { kind: 'file' }],
  ] as const)('refuses a named unix socket that is %s', (_label, fact) => {
    expect(() =>
      linux({ unixSockets: ['/run/app.sock'] }, { facts: facts({ '/run/app.sock': fact }) }),
    ).toThrowTrustError('SANDBOX_UNIX_SOCKET_INVALID');
  });
});
