import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TrustError } from '@trust/core';
import { capText } from '../tools/tool-support.js';

/** The default deadline of one tool call (60 s). */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;

/**
 * Calls one tool and returns its text content, capped at `maxTokens`. The deadline is the SDK's
 * request timeout: on expiry or on `signal`'s abort the SDK sends `notifications/cancelled` for
 * the request, and this rejects with `MCP_CALL_TIMEOUT` or `MCP_CALL_ABORTED`. A result with
 * `isError` is `MCP_TOOL_ERROR`. Structured content is never read (no server schema runs).
 *
 * @example
 * const { content } = await callMcpText(client, 'search', { q: 'x' }, { timeoutMs: 5_000, maxTokens: 4_000 });
 */
export async function callMcpText(
  client: Pick<Client, 'callTool'>,
  tool: string,
  args: Record<string, unknown>,
  options: { timeoutMs?: number; signal?: AbortSignal; maxTokens: number; label: string },
): Promise<{ content: string }> {
  const timeout = options.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
  let r: { content?: Array<{ type: string; text?: string }>; isError?: boolean };
  try {
    r = (await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout,
      ...(options.signal ? { signal: options.signal } : {}),
    })) as typeof r;
  } catch (e) {
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout)
      throw new TrustError('MCP_CALL_TIMEOUT', `${options.label} did not answer within ${timeout} ms (cancelled)`, {
        cause: e,
        hint: 'raise the call deadline for this server (callTimeoutMs), or check the server',
      });
    if (options.signal?.aborted)
      throw new TrustError('MCP_CALL_ABORTED', `${options.label} was aborted (cancelled)`, { cause: e });
    throw e;
  }
  const text = (Array.isArray(r.content) ? r.content : [])
    .map((c) => (c?.type === 'text' ? String(c.text ?? '') : `[${String(c?.type)} content omitted]`))
    .join('\n');
  const capped = capText(text, options.maxTokens).text;
  if (r.isError) throw new TrustError('MCP_TOOL_ERROR', `${options.label} failed: ${capped}`);
  return { content: capped };
}
