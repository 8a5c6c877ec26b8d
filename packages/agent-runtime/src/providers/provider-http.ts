import { DEFAULT_MAX_JSON_DEPTH, TrustError, checkJsonText, createPrincipal } from '@trust/core';
import type { Principal } from '@trust/core';
import type { ProviderHttpClient, ProviderHttpResponse, RetryOptions } from './model-provider.js';

/** Options shared by the HTTP providers. */
export interface HttpProviderOptions {
  /** API root, e.g. `https://api.openai.com/v1` or `https://api.anthropic.com`. */
  readonly baseUrl: string;
  readonly model: string;
  /** The egress client. The API key is added by its policy; the provider never holds it. */
  readonly egress: ProviderHttpClient;
  /** Principal on whose behalf requests go out (default `llm:model-provider`). */
  readonly principal?: Principal;
  /** Stream answers over SSE (default true). */
  readonly stream?: boolean;
  readonly retry?: RetryOptions;
  /** Waits between retries (injectable for tests; default a real timer). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Default max output tokens (default 4096). */
  readonly maxTokens?: number;
}

/** Egress failures worth another attempt; policy and guard denials never are. */
const TRANSIENT_EGRESS = new Set(['EGRESS_TIMEOUT', 'EGRESS_CONNECT_FAILED', 'EGRESS_PROTOCOL', 'EGRESS_DNS_TIMEOUT']);
const TRANSIENT_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

const realSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new TrustError('PROVIDER_ABORTED', 'model request aborted'));
      },
      { once: true },
    );
  });

/** Joins the base URL and an API path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function excerpt(text: string): string {
  // The body comes from the network: keep it short and printable before it reaches a message.
  return text.slice(0, 300).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * Sends one provider request with bounded retries. 401/403 → `PROVIDER_AUTH` at once; other
 * 4xx → `PROVIDER_BAD_REQUEST`; 429/5xx/529 and connection failures are retried with
 * exponential backoff (honouring `retry-after`, capped by `maxDelayMs`), then
 * `PROVIDER_UNAVAILABLE`. Egress denials propagate unchanged.
 */
export async function sendProviderRequest(
  options: HttpProviderOptions,
  label: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
): Promise<ProviderHttpResponse> {
  const maxAttempts = Math.min(Math.max(options.retry?.maxAttempts ?? 3, 1), 10);
  const base = options.retry?.baseDelayMs ?? 500;
  const cap = options.retry?.maxDelayMs ?? 8000;
  const sleep = options.sleep ?? realSleep;
  const principal = options.principal ?? createPrincipal('llm', 'model-provider');
  const url = joinUrl(options.baseUrl, path);
  const payload = JSON.stringify(body);
  let lastProblem = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (signal?.aborted) throw new TrustError('PROVIDER_ABORTED', 'model request aborted');
    let res: ProviderHttpResponse | undefined;
    try {
      res = await options.egress.fetch(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload, signal },
        { principal },
      );
    } catch (e) {
      const code = (e as { code?: unknown })?.code;
      if (signal?.aborted) throw new TrustError('PROVIDER_ABORTED', 'model request aborted', { cause: e });
      const transient = typeof code === 'string' ? TRANSIENT_EGRESS.has(code) : true;
      if (!transient) throw e;
      lastProblem = `${typeof code === 'string' ? code : 'network error'}: ${(e as Error)?.message ?? String(e)}`;
    }
    if (res) {
      if (res.status >= 200 && res.status < 300) return res;
      const text = await res.text().catch(() => '');
      if (res.status === 401 || res.status === 403) {
        throw new TrustError(
          'PROVIDER_AUTH',
          `${label} refused the credentials (HTTP ${res.status}): ${excerpt(text)}`,
          {
            hint:
              'check the API key that the egress policy injects for this host; the runtime never retries an ' +
              'auth failure',
          },
        );
      }
      if (!TRANSIENT_STATUS.has(res.status)) {
        throw new TrustError(
          'PROVIDER_BAD_REQUEST',
          `${label} rejected the request (HTTP ${res.status}): ${excerpt(text)}`,
          { hint: 'check the model name and request options' },
        );
      }
      lastProblem = `HTTP ${res.status}: ${excerpt(text)}`;
      if (attempt < maxAttempts) {
        const after = Number(res.headers.get('retry-after'));
        const wait = Math.min(cap, Number.isFinite(after) && after > 0 ? after * 1000 : base * 2 ** (attempt - 1));
        await sleep(wait, signal);
      }
    } else if (attempt < maxAttempts) {
      await sleep(Math.min(cap, base * 2 ** (attempt - 1)), signal);
    }
  }
  throw new TrustError(
    'PROVIDER_UNAVAILABLE',
    `${label} is unavailable after ${maxAttempts} attempts (${lastProblem})`,
    { hint: 'the failure looked transient; raise retry.maxAttempts or try again later' },
  );
}

/**
 * Deepest nesting taken from a model's response: the tool-argument cap of the gate (64) plus
 * room for the response's own wrapping. Deeper answers are refused before parsing, so nothing
 * recursive (storing the turn, replaying history) ever sees them; the gate then holds tool
 * arguments to 64, audited.
 */
export const PROVIDER_RESPONSE_MAX_DEPTH = DEFAULT_MAX_JSON_DEPTH + 16;

function refuseDeep(text: string, label: string, what: string): void {
  const d = checkJsonText(text, { maxDepth: PROVIDER_RESPONSE_MAX_DEPTH });
  if (!d.allow)
    throw new TrustError(d.code, `${label} sent ${what} nested deeper than ${PROVIDER_RESPONSE_MAX_DEPTH} levels`, {
      decision: d,
      hint: 'the model response was refused; try again or use another model',
    });
}

/**
 * Parses a JSON body, or fails with PROVIDER_BAD_RESPONSE (INPUT_TOO_DEEP past {@link PROVIDER_RESPONSE_MAX_DEPTH}).
 */
export function parseJsonBody(text: string, label: string): unknown {
  refuseDeep(text, label, 'a body');
  try {
    return JSON.parse(text);
  } catch {
    throw new TrustError('PROVIDER_BAD_RESPONSE', `${label} sent a body that is not JSON: ${excerpt(text)}`);
  }
}

/**
 * Parses tool-call arguments; a model that sends broken JSON gets its raw text back under `invalid_json_arguments` (the
 * tool schema then rejects it).
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  refuseDeep(text, 'the model', 'tool arguments');
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { _value: v };
  } catch {
    return { invalid_json_arguments: text };
  }
}
