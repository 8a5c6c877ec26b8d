import type { IncomingMessage, ServerResponse } from 'node:http';
import { deny, type Deny } from '@trust/core';
import type { Dispatcher } from 'undici';
import { toEgressError } from './errors.js';
import { authorizeHttp } from './policy-call.js';
import type { ProxyContext } from './proxy-context.js';
import { refuseHttp } from './proxy-refuse.js';
import { redactUrl } from './redact.js';
import { hostPort, isDenyResult, parseTarget } from './target.js';

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Why the client-side connection ended a request early. */
class ClientGone extends Error {
  override readonly name = 'AbortError';
}

/**
 * A request line or framing the proxy refuses before judging anything: a backslash in the
 * target (parsers disagree on it: WHATWG reads it as `/`, others as a literal byte), or a
 * `Transfer-Encoding` other than `chunked` (the peer would frame the body differently).
 */
function malformed(req: IncomingMessage): Deny | undefined {
  const hint = 'send one well-formed HTTP/1.1 request (RFC 9112)';
  if ((req.url ?? '').includes('\\')) {
    return deny(
      'EGRESS_REQUEST_MALFORMED',
      'egress proxy: malformed request: the request target contains a backslash',
      { rule: 'http-syntax', hint: 'percent-encode it as %5C' },
    );
  }
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
    return deny(
      'EGRESS_REQUEST_MALFORMED',
      'egress proxy: malformed request: Transfer-Encoding must be exactly "chunked"',
      { rule: 'http-syntax', hint },
    );
  }
  return undefined;
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
export function createForwardHandler(ctx: ProxyContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const started = ctx.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const bad = malformed(req);
    if (bad) {
      ctx.audit('<malformed>', bad, started, { method });
      return refuseHttp(res, bad, 400);
    }
    const target = parseTarget(req.url ?? '', ['http:', 'https:']);
    if (isDenyResult(target)) {
      ctx.audit(redactUrl(req.url ?? ''), target, started, { method });
      return refuseHttp(res, target, target.code === 'EGRESS_URL_INVALID' ? 400 : 403);
    }
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = (req.rawHeaders[i] ?? '').toLowerCase();
      if (!HOP_BY_HOP.has(name)) headers.append(name, req.rawHeaders[i + 1] ?? '');
    }
    const where = redactUrl(target.url);
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
      const verdict = await ctx.guard.resolveHost(target.host, target.port);
      if (!verdict.allow) {
        ctx.audit(where, verdict, started, { method, addresses: verdict.addresses });
        return refuseHttp(res, verdict);
      }
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
        const out: string[] = [];
        for (const [k, v] of Object.entries(up.headers)) {
          if (HOP_BY_HOP.has(k) || v === undefined) continue;
          for (const one of Array.isArray(v) ? v : [v]) out.push(k, one);
        }
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
