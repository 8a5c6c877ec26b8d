import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TrustError, type Principal } from '@trust/core';
import type { EgressClient, EgressFetchInit } from '@trust/egress';

/** The part of `@trust/egress`'s client an HTTP MCP server is reached through. */
export type McpHttpClient = Pick<EgressClient, 'fetch'>;

/**
 * The SDK's `fetch` hook, bound to the egress client: every request of the transport (POSTs,
 * the optional SSE GET, the closing DELETE) goes through the guard, the egress policy (which may
 * inject the server's credentials) and the audit, as `principal`. Redirects are refused: an MCP
 * endpoint that moves is reconfigured by its owner, not followed.
 *
 * @example
 * const fetch = egressFetchLike(egressClient, createPrincipal('plugin', 'mcp:docs'));
 */
export function egressFetchLike(client: McpHttpClient, principal: Principal): FetchLike {
  return (url, init) => {
    const request: EgressFetchInit = {
      ...(init?.method ? { method: init.method } : {}),
      ...(init?.headers ? { headers: init.headers as EgressFetchInit['headers'] } : {}),
      ...(init?.body !== undefined ? { body: init.body as EgressFetchInit['body'] } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
      redirect: 'error',
    };
    return client.fetch(url, request, { principal });
  };
}

/**
 * A Streamable HTTP transport whose only way out is the egress client. There is no fallback to
 * the global `fetch`: without a client the server is refused (`MCP_HTTP_NO_EGRESS`).
 *
 * @example
 * const transport = createEgressMcpTransport('http://127.0.0.1:7411/mcp', egressClient, principal);
 */
export function createEgressMcpTransport(
  url: string,
  client: McpHttpClient | undefined,
  principal: Principal,
): StreamableHTTPClientTransport {
  if (client === undefined) {
    throw new TrustError(
      'MCP_HTTP_NO_EGRESS',
      `MCP server at ${url} is reached over HTTP, but no egress client was given`,
      { hint: 'pass http: <@trust/egress client> so the guard, policy and audit apply' },
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new TrustError('MCP_SERVER_INVALID', `"${url}" is not a URL`, { cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TrustError('MCP_SERVER_INVALID', `MCP server URL must be http: or https:, not ${parsed.protocol}`);
  return new StreamableHTTPClientTransport(parsed, {
    fetch: egressFetchLike(client, principal),
    redirectPolicy: 'same-origin',
  });
}
