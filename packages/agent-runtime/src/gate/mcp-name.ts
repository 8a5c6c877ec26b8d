// The gate-visible names of MCP tools: one injective encoding of (server, tool), so two different
// pairs can never share a name, and a name decodes back to exactly one server (never a prefix).

/** Lower snake case, as tool names must be: `My-Server` → `my_server` (lossy; for display only). */
export function mcpSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'x'
  );
}

/** A tool name kept as it is: lower-case letters and digits, single inner underscores. */
const PLAIN_TOOL = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** A server part: config names are `[a-z0-9_-]+`; `-` is written `__d`, `_` is written `__u`. */
function encodeServer(server: string): string {
  let out = '';
  for (const ch of server) {
    if (/[a-z0-9]/.test(ch)) out += ch;
    else if (ch === '-') out += '__d';
    else if (ch === '_') out += '__u';
    else out += `__x${ch.codePointAt(0)!.toString(16)}_`;
  }
  return out;
}

/**
 * A tool part: a plain name stays as it is; any other name is written `x` + escapes + `_`, where
 * `_` is `__`, an upper-case letter `_` + its lower case, and any other character `_9<hex>_`.
 * An escaped name ends with `_`, which no plain name does, so the two sets never meet.
 */
function encodeTool(tool: string): string {
  if (PLAIN_TOOL.test(tool)) return tool;
  let out = 'x';
  for (const ch of tool) {
    if (/[a-z0-9]/.test(ch)) out += ch;
    else if (ch === '_') out += '__';
    else if (/[A-Z]/.test(ch)) out += `_${ch.toLowerCase()}`;
    else out += `_9${ch.codePointAt(0)!.toString(16)}_`;
  }
  return `${out}_`;
}

/**
 * The gate-visible name of an MCP tool: `mcp_<server>_<tool>`, an injective encoding. A server
 * name of letters and digits and a lower snake case tool name read as they are; a `-` or `_` in
 * the server name is escaped (`__d`, `__u`), so the first single `_` after the server part always
 * separates it from the tool; a tool name that is not lower snake case is written `x…_` with
 * escapes. Two different (server, tool) pairs never share a name.
 *
 * @example
 * mcpToolName('github', 'search_code'); // 'mcp_github_search_code'
 * mcpToolName('vault-ro', 'search'); // 'mcp_vault__dro_search' (never vault's 'ro_search')
 * mcpToolName('gh', 'getIssue'); // 'mcp_gh_xget_issue_'
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp_${encodeServer(server)}_${encodeTool(tool)}`;
}

/**
 * The server a gate name of {@link mcpToolName} belongs to, decoded exactly (no prefix match), or
 * undefined when the name is not such a name.
 *
 * @example
 * parseMcpToolName('mcp_vault__dro_search'); // { server: 'vault-ro', tool: 'search' }
 */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith('mcp_')) return undefined;
  let i = 4;
  let server = '';
  for (;;) {
    const ch = name[i];
    if (ch === undefined) return undefined;
    if (ch !== '_') {
      if (!/[a-z0-9]/.test(ch)) return undefined;
      server += ch;
      i += 1;
      continue;
    }
    if (name[i + 1] !== '_') break; // the separator
    const code = name[i + 2];
    if (code === 'd') server += '-';
    else if (code === 'u') server += '_';
    else return undefined;
    i += 3;
  }
  if (server === '') return undefined;
  const tool = decodeTool(name.slice(i + 1));
  if (tool === undefined || mcpToolName(server, tool) !== name) return undefined;
  return { server, tool };
}

function decodeTool(part: string): string | undefined {
  if (PLAIN_TOOL.test(part)) return part;
  if (!part.startsWith('x') || !part.endsWith('_')) return undefined;
  const body = part.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; ) {
    const ch = body[i]!;
    if (ch !== '_') {
      out += ch;
      i += 1;
      continue;
    }
    const code = body[i + 1];
    if (code === '_') {
      out += '_';
      i += 2;
    } else if (code === '9') {
      const end = body.indexOf('_', i + 2);
      if (end < 0) return undefined;
      const cp = Number.parseInt(body.slice(i + 2, end), 16);
      if (!Number.isInteger(cp) || cp > 0x10ffff) return undefined;
      out += String.fromCodePoint(cp);
      i = end + 1;
    } else if (code !== undefined && /[a-z]/.test(code)) {
      out += code.toUpperCase();
      i += 2;
    } else return undefined;
  }
  return out;
}
