import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from '../config/agent-config.js';
import { describeMcpServers } from './mcp-describe.js';

describe('describeMcpServers', () => {
  it('reports grants, network, restriction, declared tools with risk and the last logged health', () => {
    const config = parseAgentConfig({
      v: 1,
      mcp: {
        servers: [
          { name: 'vault', command: 'node', args: ['v.mjs'], capabilities: ['fs:ro:/data'], restricted: true },
          { name: 'vault-ro', command: 'node', args: ['r.mjs'], capabilities: ['http'] },
        ],
      },
      tools: [
        { name: 'mcp_vault_ro_search', enabled: true },
        { name: 'mcp_vault__dro_search', enabled: true },
        { name: 'mcp_vault__dro_wipe', enabled: false },
      ],
    });
    const row = (event: string, target: string, message: string) => ({
      origin: 'mcp',
      event,
      target,
      level: 'info',
      message,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const logs = [
      row('mcp.connected', 'vault', 'up'),
      row('mcp.failed', 'vault', 'exited'),
      row('mcp.stderr', 'vault', 'x'),
    ];
    expect(describeMcpServers(config, logs)).toEqual([
      {
        name: 'vault',
        transport: 'stdio',
        target: 'node v.mjs',
        grants: ['fs:ro:/data'],
        network: 'none',
        restricted: true,
        tools: [{ name: 'mcp_vault_ro_search', risk: 'approval' }],
        lastSeen: { event: 'mcp.failed', level: 'info', message: 'exited', at: '2026-01-01T00:00:00.000Z' },
      },
      {
        name: 'vault-ro',
        transport: 'stdio',
        target: 'node r.mjs',
        grants: ['http'],
        network: 'egress-policy',
        restricted: false,
        tools: [
          { name: 'mcp_vault__dro_search', risk: 'runs' },
          { name: 'mcp_vault__dro_wipe', risk: 'disabled' },
        ],
        lastSeen: null,
      },
    ]);
  });
});
