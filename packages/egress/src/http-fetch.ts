import { deniedError, deny, type CapabilityName, type Deny, type EgressErrorCode, type Principal } from '@trust/core';
import { Headers as ResponseHeaders, Response, type BodyInit, type Dispatcher, type HeadersInit } from 'undici';
import type { Readable } from 'node:stream';
import { recordEgress } from './audit.js';
import { BufferedResponse, reasonPhrase } from './buffered-response.js';
import type { Engine } from './engine.js';
import { egressDenied, toEgressError } from './errors.js';
import { authorizeHttp } from './policy-call.js';
import { SENSITIVE_HEADERS, redactUrl } from './redact.js';
import { Hop, type BodyMode, type HopHead, type HopResult } from './hop-dispatch.js';
import { isStreamBody, toDispatchBody, type DispatchBody } from './request-body.js';
import { boundedBody } from './response-body.js';
import { hostPort, isDenyResult, parseTarget, type Target } from './target.js';

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

const CONTENT_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/**
 * Headers neither the caller nor the policy may set: the authority the peer sees is always the
 * URL's (no domain fronting through `Host`), and framing/hop-by-hop headers belong to the client.
 */
const UNCONTROLLED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** The caller's headers that survive a redirect to another origin (everything else is dropped). */
const CROSS_ORIGIN_SAFE = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'user-agent',
]);
/** Caller header names that look like credentials: their values are scrubbed from errors. */
const CREDENTIAL_NAME = /auth|token|key|secret|session|cookie|password/i;
function isUncontrolledHeader(name: string): boolean {
  return UNCONTROLLED_HEADERS.has(name) || name.startsWith('proxy-');
}

/**
 * The guarded fetch: policy and guard on every hop, pinned connects, manual redirects, limits and
 * one audit event per decision. See `createEgressClient`.
 */
export function egressFetch(
  engine: Engine,
  input: string | URL,
  init: EgressFetchInit,
  call: EgressCallContext,
): Promise<Response> {
  return exchange(engine, input, init, call, 'fetch') as Promise<Response>;
}

/**
 * The same checks, redirects, limits and audit as `egressFetch`, answering with the raw stream
 * (no WHATWG Response, no content decoding): the fast path for bulk clients.
 */
export function egressRequest(
  engine: Engine,
  input: string | URL,
  init: EgressFetchInit,
  call: EgressCallContext,
): Promise<EgressRawResponse> {
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

async function exchange(
  engine: Engine,
  input: string | URL,
  init: EgressFetchInit,
  call: EgressCallContext,
  mode: 'fetch' | 'raw',
): Promise<Response | EgressRawResponse> {
  const context = { principal: call.principal, capability: call.capability ?? 'http' } as const;
  const userSignal = init.signal ?? undefined;
  const deadline = createDeadline(engine.limits.totalTimeoutMs, userSignal);
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
      let parsed: URL | undefined;
      const audit = (
        decision: Parameters<typeof recordEgress>[1]['decision'],
        extra: Partial<Parameters<typeof recordEgress>[1]> = {},
      ) =>
        engine.audit !== undefined &&
        recordEgress(
          engine.audit,
          {
            principal: call.principal,
            action: 'egress.http',
            target: redactUrl(parsed ?? current),
            decision,
            started: hopStarted,
            method,
            hop,
            policy: policyName,
            ...extra,
          },
          engine.now,
        );

      const target = parseTarget(current, ['http:', 'https:']);
      if (isDenyResult(target)) {
        audit(target);
        throw deniedError(target);
      }
      parsed = target.url;
      let whereText: string | undefined;
      const where = () => (whereText ??= redactUrl(target.url));
      const mapError = (e: unknown) => toEgressError(e, { where: where(), userSignal, timedOut, secrets });
      const pathAndQuery = `${target.url.pathname}${target.url.search}`;
      const headers = new Headers(callerHeaders);
      const auth = await authorizeHttp(
        engine.policy,
        {
          method,
          url: target.url.href,
          scheme: target.scheme as 'http:' | 'https:',
          host: target.host,
          port: target.port,
          path: pathAndQuery,
          headers,
        },
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

      let pending: Hop;
      try {
        const sendBody = method === 'GET' || method === 'HEAD' ? null : await toDispatchBody(body, headers);
        pending = startHop(engine, {
          target,
          pathAndQuery,
          method,
          headers,
          body: sendBody,
          redirect: init.redirect,
          mode,
          deadline,
          where,
          mapError,
        });
      } catch (e) {
        const err = toEgressError(e, { where: where(), userSignal, timedOut, secrets });
        audit(auth.decision, { addresses: verdict.addresses, failure: err.code });
        throw err;
      }
      let result: HopResult;
      try {
        result = await pending.result;
      } catch (e) {
        const err = toEgressError(e, { where: where(), userSignal, timedOut, secrets });
        const head = pending.head;
        if (head !== undefined) {
          // The answer arrived, then it was refused or its body failed (cap, stall, deadline).
          audit(auth.decision, {
            addresses: verdict.addresses,
            status: head.statusCode,
            failure: err.code,
            ...dialledOf(engine, target),
          });
        } else if (err.decision !== undefined && err.decision.rule !== 'limits') {
          // A denial from the connector (rebinding, pooled reconnect) is a guard decision.
          audit(err.decision, { addresses: verdict.addresses });
        } else {
          audit(auth.decision, { addresses: verdict.addresses, failure: err.code });
        }
        throw err;
      }
      const head = result.head;
      const status = head.statusCode;
      if (engine.audit !== undefined)
        audit(auth.decision, { addresses: verdict.addresses, status, ...dialledOf(engine, target) });

      if (!isFollowedRedirect(head, init.redirect)) {
        const url = target.url.href;
        const redirected = hop > 0;
        if (mode === 'raw')
          return { statusCode: status, headers: head.headers, body: result.body as Readable, url, redirected };
        let bytes = result.bytes;
        let body = result.body;
        if (result.mode === 'sniff') {
          // Unknown length: if the whole body came with the headers, answer it like a sized one.
          bytes = pending.takeComplete();
          if (bytes === undefined) body = pending.toStream();
        }
        if (body === undefined) deadline.done();
        if (bytes !== undefined)
          return new BufferedResponse(bytes, {
            status,
            statusText: head.statusText,
            headers: head.headers,
            url,
            redirected,
          });
        let stream: ReadableStream<Uint8Array> | null = null;
        if (body !== undefined) {
          const max = engine.limits.maxResponseBytes;
          stream = boundedBody(
            body,
            firstHeader(head, 'content-encoding'),
            max,
            () => tooLarge(where(), max),
            mapError,
            deadline.done,
          );
        }
        const response = new Response(stream, {
          status,
          statusText: reasonPhrase(head.statusText),
          headers: headersOf(head),
        });
        Object.defineProperty(response, 'url', { value: url });
        Object.defineProperty(response, 'redirected', { value: redirected });
        return response;
      }
      const location = firstHeader(head, 'location') as string;

      const refuse = (
        code: EgressErrorCode,
        reason: string,
        rule: string,
        hint: string,
        at: string | URL = current,
      ): never => {
        const d = deny(code, reason, { rule, hint });
        recordEgress(
          engine.audit,
          {
            principal: call.principal,
            action: 'egress.http',
            target: redactUrl(at),
            decision: d,
            started: engine.now(),
            method,
            hop: hop + 1,
            policy: policyName,
          },
          engine.now,
        );
        throw deniedError(d);
      };
      if (init.redirect === 'error')
        refuse(
          'EGRESS_REDIRECT_REFUSED',
          `egress: ${where()} redirected and redirects were refused`,
          'redirect',
          'pass redirect: "follow" or "manual"',
        );
      if (hop >= engine.limits.maxRedirects) {
        refuse(
          'EGRESS_TOO_MANY_REDIRECTS',
          `egress denied: more than ${engine.limits.maxRedirects} redirects starting at ${redactUrl(input)}`,
          'max-redirects',
          'raise limits.maxRedirects, or fix the redirect loop',
        );
      }
      let next: URL;
      try {
        next = new URL(location, target.url);
      } catch {
        return refuse(
          'EGRESS_REDIRECT_INVALID',
          `egress denied: ${where()} redirected to an unparsable Location`,
          'redirect',
          'the peer must send a valid Location',
        );
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        refuse(
          'EGRESS_REDIRECT_SCHEME',
          `egress denied: ${where()} redirected to scheme ${next.protocol}`,
          'redirect-scheme',
          'only http: and https: redirects are followed',
          target.url,
        );
      }
      if (target.scheme === 'https:' && next.protocol === 'http:' && !engine.allowDowngrade) {
        refuse(
          'EGRESS_DOWNGRADE',
          `egress denied: ${where()} redirected from https to http (${redactUrl(next)})`,
          'no-downgrade',
          'pass allowDowngrade: true to the client to permit it',
          next,
        );
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
        refuse(
          'EGRESS_REDIRECT_BODY',
          `egress: ${where()} answered ${status}, but a streamed body cannot be replayed`,
          'redirect',
          'send the body as a string, bytes or Blob so it can be replayed',
        );
      }
      current = next;
    }
  } catch (e) {
    deadline.done();
    throw e;
  }
}

function isFollowedRedirect(head: HopHead, redirect: EgressFetchInit['redirect']): boolean {
  return REDIRECTS.has(head.statusCode) && head.headers.location !== undefined && redirect !== 'manual';
}

function firstHeader(head: HopHead, name: string): string | undefined {
  const v = head.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function headersOf(head: HopHead): ResponseHeaders {
  const out = new ResponseHeaders();
  for (const [k, v] of Object.entries(head.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      try {
        out.append(k, one);
      } catch {
        // A header undici's Headers cannot hold (the HTTP parser already refused the worst); skip it.
      }
    }
  }
  return out;
}

function dialledOf(engine: Engine, target: Target): { dialled?: string } {
  const dialled = engine.dialled.get(hostPort(target.host, target.port));
  return dialled === undefined ? {} : { dialled };
}

function tooLarge(where: string, max: number, declared?: number) {
  return declared === undefined
    ? egressDenied(
        'EGRESS_RESPONSE_TOO_LARGE',
        `egress response from ${where} exceeded ${max} bytes`,
        'limits',
        'raise limits.maxResponseBytes if this peer is trusted',
      )
    : egressDenied(
        'EGRESS_RESPONSE_TOO_LARGE',
        `egress response from ${where} declares ${declared} bytes, over ${max}`,
        'limits',
        'raise limits.maxResponseBytes if this peer is trusted',
      );
}

interface HopRequest {
  readonly target: Target;
  readonly pathAndQuery: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: DispatchBody;
  readonly redirect: EgressFetchInit['redirect'];
  readonly mode: 'fetch' | 'raw';
  readonly deadline: Deadline;
  readonly where: () => string;
  readonly mapError: (e: unknown) => Error;
}

/**
 * Dispatches one hop. The body mode is chosen when the headers arrive: a followed redirect is
 * drained, a declared length over the cap is refused, `request` always streams (capped on raw
 * bytes), and `fetch` reads a small identity body of known length into one buffer, sniffs an
 * identity body of unknown length (buffered if it all came with the headers, else streamed),
 * and streams the rest (capped on decoded bytes by `boundedBody`).
 */
function startHop(engine: Engine, r: HopRequest): Hop {
  const max = engine.limits.maxResponseBytes;
  const choose = (head: HopHead): BodyMode | Error => {
    if (isFollowedRedirect(head, r.redirect)) return 'discard';
    const cl = Number(firstHeader(head, 'content-length') ?? NaN);
    if (Number.isFinite(cl) && cl > max) return tooLarge(r.where(), max, cl);
    if (r.mode === 'raw') return 'stream';
    // A WHATWG Response carries 200-599 only; anything else is the peer's protocol error.
    if (head.statusCode > 599) return new Error(`the peer answered with status ${head.statusCode}`);
    if (NULL_BODY.has(head.statusCode) || r.method === 'HEAD') return 'discard';
    const encoding = firstHeader(head, 'content-encoding');
    const identity = encoding === undefined || encoding === 'identity';
    if (identity && Number.isFinite(cl)) return cl <= SMALL_BODY ? 'buffer' : 'stream';
    // Unknown length: collect what comes with the headers, then buffer or stream (see exchange).
    return identity ? 'sniff' : 'stream';
  };
  const hop = new Hop({
    choose,
    maxBytes: max,
    capStream: r.mode === 'raw',
    tooLarge: () => tooLarge(r.where(), max),
    mapError: r.mapError,
    onBodyClosed: r.deadline.done,
  });
  r.deadline.track(hop);
  if (hop.aborted) return hop; // the deadline or the caller's signal already fired
  const flat: string[] = [];
  r.headers.forEach((v, k) => {
    if (!isUncontrolledHeader(k)) flat.push(k, v);
  });
  engine.dispatcher.dispatch(
    {
      origin: r.target.url.origin,
      path: r.pathAndQuery,
      method: r.method as Dispatcher.HttpMethod,
      headers: flat,
      body: r.body as Dispatcher.DispatchOptions['body'],
    },
    hop,
  );
  return hop;
}

/** The total deadline of one exchange, joined with the caller's signal; aborts the hop in flight. */
interface Deadline {
  readonly timedOut: () => boolean;
  /** A hop to abort when the deadline or the caller's signal fires (aborted at once if one has). */
  track(hop: Hop): void;
  /** Stops the timer and the listener; idempotent. */
  readonly done: () => void;
}

function createDeadline(ms: number, user: AbortSignal | undefined): Deadline {
  let fired = false;
  let reason: Error | undefined;
  // Every hop of the exchange: the current one, and earlier redirect answers still draining.
  let hops: Hop[] = [];
  const stop = (why: unknown) => {
    reason ??= why instanceof Error ? why : Object.assign(new Error(String(why)), { name: 'AbortError' });
    for (const hop of hops) hop.abort(reason);
  };
  const timer = setTimeout(() => {
    fired = true;
    stop(new DOMException('egress total timeout', 'TimeoutError'));
  }, ms);
  timer.unref?.();
  const onUser = () => stop(user?.reason ?? new DOMException('This operation was aborted', 'AbortError'));
  if (user !== undefined) {
    if (user.aborted) onUser();
    else user.addEventListener('abort', onUser, { once: true });
  }
  return {
    timedOut: () => fired,
    track(hop) {
      hops.push(hop);
      if (reason !== undefined) hop.abort(reason);
    },
    done: () => {
      clearTimeout(timer);
      hops = [];
      user?.removeEventListener('abort', onUser);
    },
  };
}
