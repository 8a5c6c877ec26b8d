import { describe, expect, it } from 'vitest';
import type { McpConnection } from './mcp-connector.js';
import { mcpLiveStates, recordMcpFailure, type McpFailures } from './mcp-live-state.js';

const conn = (server: string, closed: string | null): McpConnection => ({
  server,
  placement: 'sandbox',
  tools: [],
  refusedEnv: [],
  closedReason: () => closed,
  close: async () => undefined,
});

describe('MCP live state', () => {
  it('lists configured servers in order: connected, disconnected, failed; never-tried ones are left out', () => {
    const failures: McpFailures = new Map();
    const row = recordMcpFailure(
      failures,
      'c',
      Object.assign(new Error('spawn ENOENT'), { code: 'MCP_CONNECT_FAILED' }),
    );
    expect(row).toEqual({ level: 'error', origin: 'mcp', event: 'mcp.failed', target: 'c', message: 'spawn ENOENT' });
    const states = mcpLiveStates(
      [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }],
      [conn('b', 'the connection closed'), conn('a', null), conn('gone', null)],
      failures,
    );
    expect(states).toEqual([
      { server: 'a', kind: 'connected', placement: 'sandbox', tools: 0 },
      { server: 'b', kind: 'disconnected', message: 'the connection closed' },
      { server: 'c', kind: 'failed', code: expect.toBeTrustCode('MCP_CONNECT_FAILED'), message: 'spawn ENOENT' },
    ]);
  });

  it('an error without a code is MCP_CONNECT_FAILED; a non-error is kept as text', () => {
    const failures: McpFailures = new Map();
    recordMcpFailure(failures, 'x', 'boom');
    expect(failures.get('x')).toEqual({ code: expect.toBeTrustCode('MCP_CONNECT_FAILED'), message: 'boom' });
  });
});
