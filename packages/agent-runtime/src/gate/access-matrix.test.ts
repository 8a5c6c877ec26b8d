import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from '../config/agent-config.js';
import { evaluateCodeMethod, evaluateCodeOnlyForModel, evaluateToolAccess, toolFlags } from './access-matrix.js';
import { TOOL_ORIGINS, type ToolOrigin } from './tool-definition.js';

// Expected outcome per (enabled, restricted, origin); visible must never change the answer.
function expected(enabled: boolean, restricted: boolean, origin: ToolOrigin): string {
  const privileged = origin === 'authorized-code' || origin === 'owner' || origin === 'system';
  if (origin === 'code' && restricted) return 'REQUIRES_AUTHORIZED_CODE';
  if (!enabled) return restricted && privileged ? 'run' : 'TOOL_DISABLED';
  if (restricted && origin === 'llm') return 'approve';
  return 'run';
}

const rows: Array<[boolean, boolean, boolean, ToolOrigin, string]> = [];
for (const enabled of [false, true])
  for (const visible of [false, true])
    for (const restricted of [false, true]) {
      for (const origin of TOOL_ORIGINS)
        rows.push([enabled, visible, restricted, origin, expected(enabled, restricted, origin)]);
    }

describe('access matrix (enabled x visible x restricted x origin)', () => {
  it('covers all 40 combinations', () => expect(rows).toHaveLength(40));

  it.each(rows)('enabled=%s visible=%s restricted=%s origin=%s -> %s', (enabled, visible, restricted, origin, want) => {
    const a = evaluateToolAccess('fs_write', { enabled, visible, restricted, locked: false }, origin);
    expect(a.kind === 'deny' ? a.decision.code : a.kind).toBe(want);
  });

  // The seed's table, row by row, for the three columns it names.
  it.each([
    [false, false, 'TOOL_DISABLED', 'TOOL_DISABLED', 'TOOL_DISABLED'],
    [false, true, 'TOOL_DISABLED', 'run', 'REQUIRES_AUTHORIZED_CODE'],
    [true, false, 'run', 'run', 'run'],
    [true, true, 'approve', 'run', 'REQUIRES_AUTHORIZED_CODE'],
  ] as const)(
    'seed row enabled=%s restricted=%s: llm=%s authorized=%s code=%s',
    (enabled, restricted, llm, auth, code) => {
      const f = { enabled, visible: true, restricted, locked: false };
      const k = (o: ToolOrigin) => {
        const a = evaluateToolAccess('x', f, o);
        return a.kind === 'deny' ? a.decision.code : a.kind;
      };
      expect([k('llm'), k('authorized-code'), k('code')]).toEqual([llm, auth, code]);
    },
  );

  it.each(['say', 'ask', 'loop_compact', 'loop_clear'])('%s is excluded from code, even authorized', (name) => {
    const f = { enabled: true, visible: true, restricted: false, locked: false };
    for (const o of ['code', 'authorized-code'] as const)
      expect(evaluateToolAccess(name, f, o)).toMatchObject({
        kind: 'deny',
        decision: { code: expect.toBeTrustCode('EXCLUDED_TOOL') },
      });
    expect(evaluateToolAccess(name, f, 'llm').kind).toBe('run');
  });

  it('an undeclared tool is refused', () => {
    expect(evaluateToolAccess('nope', undefined, 'owner')).toMatchObject({
      kind: 'deny',
      decision: { code: expect.toBeTrustCode('TOOL_NOT_DECLARED') },
    });
  });
});

describe('code methods', () => {
  const cfg = parseAgentConfig({ v: 1, code_execution: { get_identity: false } });
  it.each([
    ['get_identity', 'code', 'CODE_METHOD_DISABLED'],
    ['get_identity', 'authorized-code', 'CODE_METHOD_DISABLED'],
    ['attestation_issue', 'code', 'REQUIRES_AUTHORIZED_CODE'],
    ['attestation_issue', 'authorized-code', 'run'],
    ['model_invoke', 'code', 'run'],
  ] as const)('%s from %s -> %s', (name, origin, want) => {
    const a = evaluateCodeMethod(name, cfg, origin);
    expect(a?.kind === 'deny' ? a.decision.code : a?.kind).toBe(want);
  });

  it('an explicit restricted_methods list replaces the default', () => {
    const c = parseAgentConfig({ v: 1, code_execution: { restricted_methods: ['task_resolve'] } });
    expect(evaluateCodeMethod('attestation_issue', c, 'code')?.kind).toBe('run');
    expect(evaluateCodeMethod('task_resolve', c, 'code')?.kind).toBe('deny');
  });
});

describe('code-only methods and the model', () => {
  const declared = { enabled: true, visible: true, restricted: false, locked: false };
  it.each([
    ['model_invoke', declared, 'llm', 'CODE_ONLY_METHOD'],
    ['task_resolve', declared, 'llm', 'CODE_ONLY_METHOD'],
    ['loop_inject', declared, 'llm', 'CODE_ONLY_METHOD'],
    ['model_invoke', undefined, 'llm', undefined], // undeclared: the matrix says TOOL_NOT_DECLARED
    ['model_invoke', declared, 'code', undefined],
    ['sys_lambda', declared, 'llm', undefined],
  ] as const)('%s (%j) from %s -> %s', (name, flags, origin, want) => {
    const a = evaluateCodeOnlyForModel(name, flags, origin);
    expect(a?.kind === 'deny' ? a.decision.code : a?.kind).toBe(want);
  });
});

describe('tool flags', () => {
  it('a duplicate declaration never clears restricted or locked', () => {
    const c = parseAgentConfig({
      v: 1,
      tools: [
        { name: 'x', enabled: true, restricted: true, locked: true },
        { name: 'x', enabled: true, restricted: false, locked: false },
      ],
    });
    expect(toolFlags(c, 'x')).toMatchObject({ restricted: true, locked: true });
  });

  it('a restricted MCP server restricts its tools even when declared unrestricted', () => {
    const c = parseAgentConfig({
      v: 1,
      mcp: { servers: [{ name: 'gh', command: 'x', restricted: true }] },
      tools: [{ name: 'mcp_gh_search', enabled: true }],
    });
    expect(toolFlags(c, 'mcp_gh_search')?.restricted).toBe(true);
    expect(toolFlags(c, 'mcp_gh_other')).toMatchObject({ enabled: true, restricted: true });
  });

  it('a restricted MCP server whose name has a dash still governs its tools (mcp_my__dserver_*)', () => {
    const c = parseAgentConfig({ v: 1, mcp: { servers: [{ name: 'my-server', command: 'x', restricted: true }] } });
    expect(toolFlags(c, 'mcp_my__dserver_search')).toMatchObject({ restricted: true });
  });

  // Regression (issue 37, gap 5): `mcp_vault_ro_wipe` took the flags of `vault-ro`, the server
  // with the longest matching prefix, and escaped the approval `vault` asks for.
  it('a restricted server keeps its tools restricted next to a server whose name extends it', () => {
    const c = parseAgentConfig({
      v: 1,
      mcp: {
        servers: [
          { name: 'vault', command: 'x', restricted: true },
          { name: 'vault-ro', command: 'x' },
        ],
      },
    });
    expect(toolFlags(c, 'mcp_vault_ro_wipe')).toMatchObject({ restricted: true });
    expect(toolFlags(c, 'mcp_vault_ro_wipe', 'vault')).toMatchObject({ restricted: true });
    expect(toolFlags(c, 'mcp_vault__dro_wipe', 'vault-ro')).toMatchObject({ restricted: false });
    // The registering server counts even when the name would decode elsewhere (fail closed).
    expect(toolFlags(c, 'mcp_vault__dro_wipe', 'vault')).toMatchObject({ restricted: true });
    // No prefix match: a name of no configured server gets no server defaults.
    expect(toolFlags(c, 'mcp_vault__dro__dx_wipe')).toBeUndefined();
  });
});
