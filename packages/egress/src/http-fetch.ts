import { deniedError, deny, type CapabilityName, type Deny, type Principal } from '@trust/core';
import { Headers as ResponseHeaders, Response, type BodyInit, type Dispatcher, type HeadersInit } from 'undici';
import { recordEgress } from './audit.js';
import type { Engine } from './engine.js';
import { egressDenied, toEgressError } from './errors.js';
import { authorizeHttp } from './policy-call.js';
import { SENSITIVE_HEADERS, redactUrl } from './redact.js';
import { isStreamBody, toDispatchBody } from './request-body.js';
import { boundedBody, boundedReadable } from './response-body.js';
import type { Readable } from 'node:stream';
import { hostPort, isDenyResult, parseTarget } from './target.js';

/** Who is asking. The principal lands in the policy context and every audit event. */
export interface EgressCallContext {
  readonly principal: Principal;
  /** Capability under which the call is made (default `http`). */
  readonly capability?: CapabilityName;
}

/** The subset of `RequestInit` the egress client honours. */
export interface EgressFetchInit {
  readonly method?: string;
  readonly headers?: HeadersInit;
  /** Strings, bytes, Blob, FormData and URLSearchParams can be replayed on 307/308; a stream cannot. */
  readonly body?: BodyInit | null;
  readonly signal?: AbortSignal | null;
  /** `follow` (default): manual, re-checked hops. `manual`: return the 3xx. `error`: a redirect throws. */
  readonly redirect?: 'follow' | 'manual' | 'error';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Bodies up to this many declared bytes are buffered before the Response is returned. */
const SMALL_BODY = 64 * 1024;

async function readSmall(body: AsyncIterable<Buffer>, max: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) throw egressDenied('EGRESS_RESPONSE_TOO_LARGE', `egress response exceeded ${max} bytes`, 'limits', 'raise limits.maxResponseBytes if this peer is trusted');
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}
const CONTENT_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/**
 * Headers neither the caller nor the policy may set: the authority the peer sees is always the
 * URL's (no domain fronting through `Host`), and framing/hop-by-hop headers belong to the client.
 */
const UNCONTROLLED_HEADERS = new Set(['host', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** The caller's headers that survive a redirect to another origin (everything else is dropped). */
const CROSS_ORIGIN_SAFE = new Set(['accept', 'accept-encoding', 'accept-language', 'cache-control', 'content-encoding', 'content-language', 'content-length', 'content-type', 'user-agent']);
/** Caller header names that look like credentials: their values are scrubbed from errors. */
const CREDENTIAL_NAME = /auth|token|key|secret|session|cookie|password/i;
function isUncontrolledHeader(name: string): boolean {
  return UNCONTROLLED_HEADERS.has(name) || name.startsWith('proxy-');
}

/**
 * The guarded fetch: policy and guard on every hop, pinned connects, manual redirects, limits and
 * one audit event per decision. See `createEgressClient`.
 */
export function egressFetch(engine: Engine, input: string | URL, init: EgressFetchInit, call: EgressCallContext): Promise<Response> {
  return exchange(engine, input, init, call, 'fetch') as Promise<Response>;
}

/**
 * The same checks, redirects, limits and audit as `egressFetch`, answering with the raw stream
 * (no WHATWG Response, no content decoding): the fast path for bulk clients.
 */
export function egressRequest(engine: Engine, input: string | URL, init: EgressFetchInit, call: EgressCallContext): Promise<EgressRawResponse> {
  return exchange(engine, input, init, call, 'raw') as Promise<EgressRawResponse>;
}

/** What `client.request` answers: undici's shape plus the final URL. */
export interface EgressRawResponse {
  readonly statusCode: number;
  /** Lowercase names; repeated headers as arrays. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, size-capped while streaming; errors carry `EGRESS_*` codes. Not decoded. */
  readonly body: Readable;
  /** The URL that answered (after redirects). */
  readonly url: string;
  readonly redirected: boolean;
}

async function exchange(engine: Engine, input: string | URL, init: EgressFetchInit, call: EgressCallContext, mode: 'fetch' | 'raw'): Promise<Response | EgressRawResponse> {
  const context = { principal: call.principal, capability: call.capability ?? 'http' } as const;
  const userSignal = init.signal ?? undefined;
  const deadline = createDeadline(engine.limits.totalTimeoutMs, userSignal);
  const signal = deadline.signal;
  const timedOut = deadline.timedOut;
  try {
    const callerHeaders = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
    const secrets = new Set<string>();
    for (const h of SENSITIVE_HEADERS) {
      const v = callerHeaders.get(h);
      if (v !== null) secrets.add(v);
    }
    callerHeaders.forEach((v, k) => {
      if (CREDENTIAL_NAME.test(k) && v.length >= 4) secrets.add(v);
    });
    let method = (init.method ?? 'GET').toUpperCase();
    let body: BodyInit | null = init.body ?? null;
    let current: string | URL = input;
    const policyName = engine.policy.name;

    for (let hop = 0; ; hop++) {
      const hopStarted = engine.now();
      const audit = (decision: Parameters<typeof recordEgress>[1]['decision'], extra: Partial<Parameters<typeof recordEgress>[1]> = {}) =>
        engine.audit !== undefined &&
        recordEgress(engine.audit, { principal: call.principal, action: 'egress.http', target: redactUrl(current), decision, started: hopStarted, method, hop, policy: policyName, ...extra }, engine.now);

      const target = parseTarget(current, ['http:', 'https:']);
      if (isDenyResult(target)) {
        audit(target);
        throw deniedError(target);
      }
      let whereText: string | undefined;
      const where = () => (whereText ??= redactUrl(target.url));
      const pathAndQuery = `${target.url.pathname}${target.url.search}`;
      const headers = new Headers(callerHeaders);
      const auth = await authorizeHttp(
        engine.policy,
        { method, url: target.url.href, scheme: target.scheme as 'http:' | 'https:', host: target.host, port: target.port, path: pathAndQuery, headers },
        context,
      );
      for (const s of auth.secrets) secrets.add(s);
      if (!auth.decision.allow) {
        audit(auth.decision);
        throw deniedError(auth.decision as Deny);
      }
      const verdict = await engine.guard.resolveHost(target.host, target.port);
      if (!verdict.allow) {
        audit(verdict, { addresses: verdict.addresses });
        throw deniedError(verdict);
      }

      let res: Dispatcher.ResponseData;
      try {
        const sendBody = method === 'GET' || method === 'HEAD' ? null : await toDispatchBody(body, headers);
        const flat: string[] = [];
        headers.forEach((v, k) => {
          if (!isUncontrolledHeader(k)) flat.push(k, v);
        });
        res = await engine.dispatcher.request({
          origin: target.url.origin,
          path: pathAndQuery,
          method: method as Dispatcher.HttpMethod,
          headers: flat,
          body: sendBody as Dispatcher.RequestOptions['body'],
          signal,
        } as Dispatcher.RequestOptions);
      } catch (e) {
        const err = toEgressError(e, { where: where(), userSignal, timedOut, secrets });
        // A denial from the connector (rebinding, pooled reconnect) is a guard decision; anything
        // else is a transport failure after an allow.
        if (err.decision !== undefined && err.decision.rule !== 'limits') audit(err.decision, { addresses: verdict.addresses });
        else audit(auth.decision, { addresses: verdict.addresses, failure: err.code });
        throw err;
      }
      const status = res.statusCode;
      const dialled = engine.dialled.get(hostPort(target.host, target.port));
      audit(auth.decision, { addresses: verdict.addresses, status, ...(dialled ? { dialled } : {}) });

      const first = (name: string): string | undefined => {
        const v = res.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const location = first('location');
      if (!REDIRECTS.has(status) || location === undefined || init.redirect === 'manual') {
        const cl = Number(first('content-length') ?? NaN);
        if (Number.isFinite(cl) && cl > engine.limits.maxResponseBytes) {
          res.body.destroy();
          throw egressDenied('EGRESS_RESPONSE_TOO_LARGE', `egress response from ${where()} declares ${cl} bytes, over ${engine.limits.maxResponseBytes}`, 'limits', 'raise limits.maxResponseBytes if this peer is trusted');
        }
        if (mode === 'raw') {
          const max = engine.limits.maxResponseBytes;
          const body = boundedReadable(
            res.body,
            max,
            () => egressDenied('EGRESS_RESPONSE_TOO_LARGE', `egress response from ${where()} exceeded ${max} bytes`, 'limits', 'raise limits.maxResponseBytes if this peer is trusted'),
            (e) => toEgressError(e, { where: where(), userSignal, timedOut, secrets }),
            deadline.done,
          );
          return { statusCode: status, headers: res.headers, body, url: target.url.href, redirected: hop > 0 };
        }
        const out = new ResponseHeaders();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
        }
        let stream: ReadableStream<Uint8Array> | Uint8Array | null = null;
        const encoding = first('content-encoding');
        if (NULL_BODY.has(status) || method === 'HEAD') {
          res.body.dump().catch(() => {});
          deadline.done();
        } else if (Number.isFinite(cl) && cl <= SMALL_BODY && (encoding === undefined || encoding === 'identity')) {
          // A small body of known length is read here in one go: the web-stream wrapper costs more
          // than the bytes. Limits and timeouts apply exactly as when streaming.
          try {
            stream = await readSmall(res.body, engine.limits.maxResponseBytes);
          } catch (e) {
            throw toEgressError(e, { where: where(), userSignal, timedOut, secrets });
          } finally {
            deadline.done();
          }
        } else {
          const max = engine.limits.maxResponseBytes;
          stream = boundedBody(
            res.body,
            first('content-encoding'),
            max,
            () => egressDenied('EGRESS_RESPONSE_TOO_LARGE', `egress response from ${where()} exceeded ${max} bytes`, 'limits', 'raise limits.maxResponseBytes if this peer is trusted'),
            (e) => toEgressError(e, { where: where(), userSignal, timedOut, secrets }),
            deadline.done,
          );
        }
        const response = new Response(stream, { status, headers: out });
        Object.defineProperty(response, 'url', { value: target.url.href });
        Object.defineProperty(response, 'redirected', { value: hop > 0 });
        return response;
      }
      res.body.dump().catch(() => {});

      const refuse = (code: string, reason: string, rule: string, hint: string, at: string | URL = current): never => {
        const d = deny(code, reason, { rule, hint });
        recordEgress(engine.audit, { principal: call.principal, action: 'egress.http', target: redactUrl(at), decision: d, started: engine.now(), method, hop: hop + 1, policy: policyName }, engine.now);
        throw deniedError(d);
      };
      if (init.redirect === 'error') refuse('EGRESS_REDIRECT_REFUSED', `egress: ${where()} redirected and redirects were refused`, 'redirect', 'pass redirect: "follow" or "manual"');
      if (hop >= engine.limits.maxRedirects) {
        refuse('EGRESS_TOO_MANY_REDIRECTS', `egress denied: more than ${engine.limits.maxRedirects} redirects starting at ${redactUrl(input)}`, 'max-redirects', 'raise limits.maxRedirects, or fix the redirect loop');
      }
      let next: URL;
      try {
        next = new URL(location, target.url);
      } catch {
        return refuse('EGRESS_REDIRECT_INVALID', `egress denied: ${where()} redirected to an unparsable Location`, 'redirect', 'the peer must send a valid Location');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        refuse('EGRESS_REDIRECT_SCHEME', `egress denied: ${where()} redirected to scheme ${next.protocol}`, 'redirect-scheme', 'only http: and https: redirects are followed', target.url);
      }
      if (target.scheme === 'https:' && next.protocol === 'http:' && !engine.allowDowngrade) {
        refuse('EGRESS_DOWNGRADE', `egress denied: ${where()} redirected from https to http (${redactUrl(next)})`, 'no-downgrade', 'pass allowDowngrade: true to the client to permit it', next);
      }
      if (next.origin !== target.url.origin) {
        // A new origin gets none of the caller's credentials, whatever they are called: only a
        // small set of content-negotiation headers crosses. The policy runs again on the new hop.
        for (const name of [...callerHeaders.keys()]) if (!CROSS_ORIGIN_SAFE.has(name)) callerHeaders.delete(name);
      }
      const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
      if (toGet) {
        method = 'GET';
        body = null;
        for (const h of CONTENT_HEADERS) callerHeaders.delete(h);
      } else if (body !== null && isStreamBody(body)) {
        refuse('EGRESS_REDIRECT_BODY', `egress: ${where()} answered ${status}, but a streamed body cannot be replayed`, 'redirect', 'send the body as a string, bytes or Blob so it can be replayed');
      }
      current = next;
    }
  } catch (e) {
    deadline.done();
    throw e;
  }
}

/** The total deadline of one fetch, joined with the caller's signal, without AbortSignal.any. */
function createDeadline(ms: number, user: AbortSignal | undefined) {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new DOMException('egress total timeout', 'TimeoutError'));
  }, ms);
  timer.unref?.();
  const onUser = () => controller.abort(user?.reason);
  if (user !== undefined) {
    if (user.aborted) onUser();
    else user.addEventListener('abort', onUser, { once: true });
  }
  return {
    signal: controller.signal,
    timedOut: () => fired,
    done: () => {
      clearTimeout(timer);
      user?.removeEventListener('abort', onUser);
    },
  };
}
