/** Lower snake case, as tool names must be: `My-Server` → `my_server`. */
export function mcpSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'x'
  );
}

/**
 * The gate-visible name of an MCP tool: `mcp_<server>_<tool>`. The access matrix derives a
 * server's defaults from the same slug, so a server named `my-server` governs `mcp_my_server_*`.
 *
 * @example
 * mcpToolName('my-server', 'Search'); // 'mcp_my_server_search'
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp_${mcpSlug(server)}_${mcpSlug(tool)}`;
}
