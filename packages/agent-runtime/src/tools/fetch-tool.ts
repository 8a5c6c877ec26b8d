import { TrustError } from '@trust/core';
import type { Principal } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';
import type { CodeRunner } from '../code/code-runner.js';
import { runMiddlewareChain } from '../code/middleware.js';
import { capText } from './tool-support.js';
import { checkOptions } from '../options/strict-options.js';
import { sysFetchToolDepsSchema } from '../options/tool-factory-options.js';

/** The part of the egress client sys_fetch uses (structurally `@trust/egress`'s client). */
export interface FetchClient {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal; redirect?: 'follow' },
    call: { principal: Principal },
  ): Promise<{
    status: number;
    headers: { forEach(cb: (v: string, k: string) => void): void };
    body: ReadableStream<Uint8Array> | null;
  }>;
}

/**
 * Egress clients by guard mode: `default` (loopback allowed except protected ports, private blocked) and, optionally,
 * `allowLocal`.
 */
export interface FetchClients {
  /** Guard mode `default`, with the control API port in `protectedPorts`. */
  readonly default: FetchClient;
  /**
   * Guard mode `allow-local`; used only when `security.allow_local_fetch` is true. Absent: the default client is used
   * (stricter).
   */
  readonly allowLocal?: FetchClient;
}

/** Hard cap on a response body sys_fetch reads (the egress client has its own limit too). */
export const FETCH_BODY_CAP_BYTES = 25 * 1024 * 1024;

interface FetchRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

const acceptRequest = (v: unknown): FetchRequest | undefined => {
  const r = v as Partial<FetchRequest> | null;
  if (
    !r ||
    typeof r.url !== 'string' ||
    typeof r.method !== 'string' ||
    typeof r.headers !== 'object' ||
    r.headers === null
  )
    return undefined;
  if (Object.values(r.headers).some((h) => typeof h !== 'string')) return undefined;
  if (r.body !== undefined && typeof r.body !== 'string') return undefined;
  return { url: r.url, method: r.method, headers: { ...r.headers }, ...(r.body !== undefined ? { body: r.body } : {}) };
};

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
): Promise<{ text: string; bytes: number }> {
  if (!body) return { text: '', bytes: 0 };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > cap) {
      await reader.cancel();
      throw new TrustError('FETCH_BODY_TOO_LARGE', `response body exceeds ${cap} bytes`);
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes };
}

/**
 * sys_fetch: HTTP(S) through `@trust/egress` (policy, address guard, pinned connects, manual
 * redirects re-checked per hop, at most 5). `security.fetch_middleware` runs first and fails
 * closed. The body is capped while streaming; what reaches the model is capped by
 * `limits.max_tool_result_tokens`.
 */
export function createSysFetchTool(deps: {
  clients: FetchClients;
  runner: () => CodeRunner;
  agentId: string;
}): ToolDefinition<{ url: string; method?: string; headers?: Record<string, string>; body?: string }> {
  checkOptions('createSysFetchTool', sysFetchToolDepsSchema, deps);
  return {
    name: 'sys_fetch',
    description: 'Fetch an http(s) URL. Private and link-local addresses and the control API are blocked.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'http:// or https:// URL.', maxLength: 8192 },
        method: {
          type: 'string',
          enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'],
          description: 'HTTP method (default GET).',
        },
        headers: { type: 'object', description: 'Request headers.' },
        body: { type: 'string', description: 'Request body.', maxLength: 10_000_000 },
      },
      required: ['url'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      let request: FetchRequest =
        acceptRequest({
          url: args.url,
          method: args.method ?? 'GET',
          headers: args.headers ?? {},
          ...(args.body !== undefined ? { body: args.body } : {}),
        }) ??
        (() => {
          throw new TrustError('TOOL_ARGS_INVALID', 'headers must map names to strings');
        })();
      const refs = ctx.config.security.fetch_middleware;
      if (refs.length > 0) {
        const r = await runMiddlewareChain({
          adf: ctx.adf,
          runner: deps.runner(),
          kind: 'fetch',
          refs,
          value: request,
          accept: acceptRequest,
          signal: ctx.signal,
        });
        if (!r.ok) {
          ctx.audit.record({
            principal: ctx.principal,
            action: 'fetch.middleware',
            target: request.url,
            decision: 'deny',
            code: r.code,
            rule: 'fetch_middleware',
          });
          throw new TrustError(r.code, `sys_fetch refused by fetch middleware: ${r.reason}`);
        }
        request = r.value;
      }
      const client =
        ctx.config.security.allow_local_fetch && deps.clients.allowLocal
          ? deps.clients.allowLocal
          : deps.clients.default;
      const res = await client.fetch(
        request.url,
        {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
          signal: ctx.signal,
          redirect: 'follow',
        },
        { principal: ctx.principal },
      );
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        headers[k] = v;
      });
      const { text, bytes } = await readCapped(res.body, FETCH_BODY_CAP_BYTES);
      const capped = capText(text, ctx.config.limits.max_tool_result_tokens);
      return { status: res.status, headers, body: capped.text, bytes, truncated: capped.truncated };
    },
  };
}
