import { describe, expect, it } from 'vitest';
import { mcpToolName, parseMcpToolName } from './mcp-name.js';

describe('MCP tool names', () => {
  it.each([
    ['github', 'search_code', 'mcp_github_search_code'],
    ['vault', 'ro_search', 'mcp_vault_ro_search'],
    ['vault-ro', 'search', 'mcp_vault__dro_search'],
    ['vault_ro', 'search', 'mcp_vault__uro_search'],
    ['gh', 'getIssue', 'mcp_gh_xget_issue_'],
    ['gh', 'Search', 'mcp_gh_x_search_'],
    ['gh', 'search', 'mcp_gh_search'],
    ['gh', 'a__b', 'mcp_gh_xa____b_'],
    ['gh', '', 'mcp_gh_x_'],
  ])('%s/%s → %s, and back', (server, tool, name) => {
    expect(mcpToolName(server, tool)).toBe(name);
    expect(parseMcpToolName(name)).toEqual({ server, tool });
    expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  // Regression (issue 37, gap 4): `vault` + `ro_search` and `vault-ro` + `search` shared
  // `mcp_vault_ro_search`, and the registry dropped the second silently.
  it('is injective over a dense set of server and tool names', () => {
    const servers = ['a', 'a-b', 'a_b', 'ab', 'a-', 'a--b', 'a_-b', 'b'];
    const parts = ['', 'a', 'b', '_', '-', 'A', 'B', '.', '9', 'x'];
    const tools = new Set<string>();
    for (const p of parts) for (const q of parts) for (const r of parts) tools.add(p + q + r);
    const seen = new Map<string, string>();
    for (const s of servers)
      for (const t of tools) {
        const name = mcpToolName(s, t);
        const pair = JSON.stringify([s, t]);
        expect(seen.get(name) ?? pair, name).toBe(pair);
        seen.set(name, pair);
        expect(parseMcpToolName(name)).toEqual({ server: s, tool: t });
      }
    expect(seen.size).toBe(servers.length * tools.size);
  });

  it.each(['mcp_', 'mcp__x_a', 'mcp_a', 'fs_read', 'mcp_a__zb_c', 'mcp_a_xb__', 'mcp_a_Search', 'mcp_a_x_9zz_'])(
    '%s is no MCP tool name',
    (name) => {
      expect(parseMcpToolName(name)).toBeUndefined();
    },
  );
});
