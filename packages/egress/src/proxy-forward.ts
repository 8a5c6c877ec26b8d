import type { IncomingMessage, ServerResponse } from 'node:http';
import { deny, type Deny } from '@trust/core';
import type { Dispatcher } from 'undici';
import { toEgressError } from './errors.js';
import { authorizeHttp } from './policy-call.js';
import type { ProxyContext } from './proxy-context.js';
import type { CurrentRequest } from './proxy-connection.js';
import { refuseHttp } from './proxy-refuse.js';
import { checkRequest, finalRecipientAnswer, forwardHeaders, maxForwards, responseHeaders } from './proxy-request.js';
import { redactUrl } from './redact.js';
import { hostPort, isDenyResult, parseTarget } from './target.js';

/** Why the client-side connection ended a request early. */
class ClientGone extends Error {
  override readonly name = 'AbortError';
}

/** The client's request deadline passed before its body ended. */
class ClientLate extends Error {
  override readonly name = 'AbortError';
  constructor(readonly decision: Deny) {
    super(decision.reason);
  }
}

function traceRefused(reason: string): Deny {
  return deny('EGRESS_METHOD_NOT_ALLOWED', `egress denied: TRACE ${reason}`, {
    rule: 'trace',
    hint: 'TRACE echoes the request, credentials included; use another method',
  });
}

/** Waits until `res` can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * The forward-proxy handler (absolute-form requests). Every request runs the policy and the
 * guard, and one deadline (`limits.totalTimeoutMs`) covers it all, the streamed request and
 * response bodies included. The client going away aborts the upstream request; the upstream
 * failing destroys the client's response. `close()` aborts what is still in flight.
 */
export function createForwardHandler(
  ctx: ProxyContext,
): (req: IncomingMessage, res: ServerResponse, current: CurrentRequest) => Promise<void> {
  return async (req, res, current) => {
    const started = ctx.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const bad = checkRequest(req, ctx.clientLimits.maxHeaderCount);
    if (bad) {
      ctx.audit('<malformed>', bad.decision, started, { method });
      return refuseHttp(res, bad.decision, bad.status);
    }
    const target = parseTarget(req.url ?? '', ['http:', 'https:']);
    if (isDenyResult(target)) {
      ctx.audit(redactUrl(req.url ?? ''), target, started, { method });
      return refuseHttp(res, target, target.code === 'EGRESS_URL_INVALID' ? 400 : 403);
    }
    const where = redactUrl(target.url);
    if (method === 'TRACE' && !ctx.allowTrace) {
      const d = traceRefused('is not forwarded by this proxy');
      ctx.audit(where, d, started, { method });
      return refuseHttp(res, d, 405, { allow: 'GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS' });
    }
    const forwards = maxForwards(req, method);
    const headers = forwardHeaders(req, forwards);
    // The deadline starts now: judging, dialling, the request body and the response body.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('egress total timeout', 'TimeoutError'));
    }, ctx.limits.totalTimeoutMs);
    const onClientGone = (): void => {
      if (!res.writableFinished) controller.abort(new ClientGone('the client closed the connection'));
    };
    res.once('close', onClientGone);
    current.onTimeout = (d) => controller.abort(new ClientLate(d));
    ctx.inflight.add(controller);
    try {
      const auth = await authorizeHttp(
        ctx.policy,
        {
          method,
          url: target.url.href,
          scheme: target.scheme as 'http:' | 'https:',
          host: target.host,
          port: target.port,
          path: `${target.url.pathname}${target.url.search}`,
          headers,
        },
        { principal: ctx.principal, capability: 'http' },
      );
      if (!auth.decision.allow) {
        ctx.audit(where, auth.decision, started, { method });
        return refuseHttp(res, auth.decision as Deny);
      }
      if (method === 'TRACE' && auth.injected) {
        const d = traceRefused('is refused on a route the policy injects headers into');
        ctx.audit(where, d, started, { method });
        return refuseHttp(res, d, 405);
      }
      if (forwards === 0) {
        // RFC 9110 §7.6.2: the proxy is the final recipient; nothing goes out.
        const answer = finalRecipientAnswer(req, method);
        ctx.audit(where, auth.decision, started, { method, status: 200 });
        res.writeHead(200, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
        return void res.end(answer.body);
      }
      const verdict = await ctx.guard.resolveHost(target.host, target.port);
      if (!verdict.allow) {
        ctx.audit(where, verdict, started, { method, addresses: verdict.addresses });
        return refuseHttp(res, verdict);
      }
      // The body is asked for only once the request is allowed: a refused upload is never sent.
      if (req.headers.expect !== undefined) res.writeContinue();
      let status: number | undefined;
      try {
        controller.signal.throwIfAborted();
        const hasBody =
          !(method === 'GET' || method === 'HEAD') &&
          (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);
        const up = await ctx.forwarder().request({
          origin: target.url.origin,
          path: `${target.url.pathname}${target.url.search}`,
          method: method as Dispatcher.HttpMethod,
          headers: [...headers].flat(),
          body: hasBody ? req : null,
          signal: controller.signal,
        });
        const out = responseHeaders(up.headers);
        status = up.statusCode;
        ctx.audit(where, auth.decision, started, {
          method,
          addresses: verdict.addresses,
          status,
          dialled: ctx.dialled.get(hostPort(target.host, target.port)),
        });
        res.writeHead(up.statusCode, out);
        let seen = 0;
        for await (const chunk of up.body) {
          seen += (chunk as Buffer).length;
          if (seen > ctx.limits.maxResponseBytes) {
            up.body.destroy();
            res.destroy();
            return;
          }
          if (!res.write(chunk)) await drained(res);
          if (res.destroyed) throw new ClientGone('the client closed the connection');
        }
        res.end();
      } catch (e) {
        // The body failed to parse: refused with 400 and audited as that denial already.
        if (current.malformed) return void res.destroy();
        const late = controller.signal.reason instanceof ClientLate ? controller.signal.reason : undefined;
        if (late) {
          ctx.audit(where, late.decision, started, { method, addresses: verdict.addresses });
          return refuseHttp(res, late.decision, 408);
        }
        const gone = controller.signal.reason instanceof ClientGone || e instanceof ClientGone;
        const err = toEgressError(gone ? new ClientGone('the client closed the connection') : e, {
          where,
          secrets: auth.secrets,
          timedOut: () => timedOut,
        });
        const d = err.decision ?? deny(err.code, err.message);
        if (err.decision && err.decision.rule !== 'limits')
          ctx.audit(where, err.decision, started, { method, addresses: verdict.addresses });
        else
          ctx.audit(where, auth.decision, started, {
            method,
            addresses: verdict.addresses,
            failure: err.code,
            ...(status !== undefined ? { status } : {}),
          });
        if (gone) return void res.destroy();
        refuseHttp(
          res,
          d,
          err.decision && err.decision.rule !== 'limits' ? 403 : err.code === 'EGRESS_TIMEOUT' ? 504 : 502,
        );
      }
    } finally {
      clearTimeout(timer);
      res.off('close', onClientGone);
      ctx.inflight.delete(controller);
    }
  };
}
