import { describe, expect, it } from 'vitest';
import { mcpLiveState, type McpServerHealth } from './mcp-live-state.js';

const health = (over: Partial<McpServerHealth>): McpServerHealth => ({
  server: 'vault',
  state: 'ready',
  placement: 'sandbox',
  reason: undefined,
  stderrTail: '',
  restarts: 0,
  since: '2026-01-01T00:00:00.000Z',
  refusedEnv: [],
  tools: [{ name: 'mcp_vault_search', tool: 'search', risk: 'runs' }],
  refusedTools: [],
  ...over,
});

describe('MCP live state', () => {
  it.each([
    ['ready', {}, { kind: 'connected', placement: 'sandbox', tools: 1 }],
    [
      'failed',
      { state: 'failed', reason: { code: 'MCP_SANDBOX_MISSING', message: 'no sandbox' } },
      { kind: 'failed', code: 'MCP_SANDBOX_MISSING', message: 'no sandbox' },
    ],
    ['starting', { state: 'starting' }, { kind: 'disconnected', message: 'starting' }],
    [
      'degraded',
      { state: 'degraded', reason: { code: 'MCP_SERVER_EXITED', message: 'exited' } },
      { kind: 'failed', code: 'MCP_SERVER_EXITED', message: 'exited (a restart is scheduled)' },
    ],
  ] as const)('%s', (_label, over, expected) => {
    const h = health(over as Partial<McpServerHealth>);
    expect(mcpLiveState(h)).toEqual({ server: 'vault', ...expected, health: h });
  });
});
