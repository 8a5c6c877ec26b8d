import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { deny, type Decision, type Deny } from '@trust/core';
import { toEgressError } from './errors.js';
import { authorizeHttp, authorizePeer } from './policy-call.js';
import type { ProxyContext } from './proxy-context.js';
import { refuseTunnel } from './proxy-refuse.js';
import { hostPort, isDenyResult, parseTarget } from './target.js';

/**
 * A CONNECT authority: a host (name or IPv4 in any spelling the URL parser then canonicalises,
 * percent-escapes included) or a bracketed IPv6 literal, then decimal port digits. No userinfo,
 * path, query or fragment can match; the URL parser decides the host and the port's range.
 */
const CONNECT_AUTHORITY = /^(?:[A-Za-z0-9_.%-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):\d{1,10}$/;

/** The port an HTTP grant may tunnel to without naming it: HTTPS. */
const HTTPS_PORT = 443;

/**
 * Judges a tunnel. Under `tcp`: `authorizeTcp` (absent = deny). Under `http`: `authorizeHttp`
 * about `https://host:port/` with method CONNECT, and the tunnel opens only to port 443 or to the
 * port the allowing rule names (`Allow.port`); any other port is a raw TCP tunnel and needs
 * `authorizeTcp` (the `tcp` capability). Returns the decision and the action it is audited as.
 */
async function judgeTunnel(
  ctx: ProxyContext,
  host: string,
  port: number,
  url: string,
): Promise<{ decision: Decision; action: 'egress.http' | 'egress.tcp' }> {
  const peer = { host, port };
  if (ctx.connectAs === 'tcp')
    return {
      decision: await authorizePeer(ctx.policy, 'tcp', peer, { principal: ctx.principal, capability: 'tcp' }),
      action: 'egress.tcp',
    };
  const auth = await authorizeHttp(
    ctx.policy,
    { method: 'CONNECT', url, scheme: 'https:', host, port, path: '/', headers: new Headers() },
    { principal: ctx.principal, capability: 'http' },
  );
  const http = auth.decision;
  if (http.allow && (port === HTTPS_PORT || http.port === port)) return { decision: http, action: 'egress.http' };
  const tcp = await authorizePeer(ctx.policy, 'tcp', peer, { principal: ctx.principal, capability: 'tcp' });
  if (tcp.allow) return { decision: tcp, action: 'egress.tcp' };
  if (!http.allow) return { decision: http, action: 'egress.http' };
  const refused: Deny = deny(
    'EGRESS_TUNNEL_PORT_NOT_ALLOWED',
    `egress denied: CONNECT ${hostPort(host, port)} would be a raw TCP tunnel; under http a tunnel ` +
      `reaches port 443 or a port the policy rule names explicitly (${(tcp as Deny).reason})`,
    {
      rule: 'connect-port',
      hint:
        `name the port in the rule ("${hostPort(host, port)}"), or grant ` +
        `the tcp capability with an authorizeTcp rule for it`,
    },
  );
  return { decision: refused, action: 'egress.http' };
}

/** The CONNECT handler: strict authority, policy (with the port rule), guard, then a piped tunnel. */
export function createConnectHandler(
  ctx: ProxyContext,
): (req: IncomingMessage, client: Duplex, head: Buffer) => Promise<void> {
  return async (req, client, head) => {
    const started = ctx.now();
    ctx.sockets.add(client);
    client.on('close', () => ctx.sockets.delete(client));
    client.on('error', () => client.destroy());
    // The CONNECT authority is parsed strictly (host:port, nothing else) before anything else
    // sees it, and a refused one is never echoed: it may carry userinfo, a path or a query.
    const authority = req.url ?? '';
    const target = CONNECT_AUTHORITY.test(authority) ? parseTarget(`https://${authority}/`, ['https:']) : undefined;
    if (target === undefined || isDenyResult(target) || target.port < 1) {
      const d = deny('EGRESS_TARGET_INVALID', 'egress denied: a CONNECT target must be exactly host:port', {
        rule: 'target-syntax',
        hint: 'send CONNECT host:443 (no userinfo, path or query)',
      });
      ctx.audit('connect://<invalid>', d, started, { method: 'CONNECT' });
      return refuseTunnel(client, d, 400);
    }
    const where = hostPort(target.host, target.port);
    const { decision, action } = await judgeTunnel(ctx, target.host, target.port, target.url.href);
    if (!decision.allow) {
      ctx.audit(`connect://${where}`, decision, started, { method: 'CONNECT', action });
      return refuseTunnel(client, decision as Deny);
    }
    const verdict = await ctx.guard.resolveHost(target.host, target.port);
    if (!verdict.allow) {
      ctx.audit(`connect://${where}`, verdict, started, { method: 'CONNECT', action, addresses: verdict.addresses });
      return refuseTunnel(client, verdict);
    }
    if (client.destroyed) return;
    const ip = verdict.addresses[0] as string;
    const upstream = connect({ host: ip, port: target.port, timeout: ctx.limits.connectTimeoutMs });
    ctx.sockets.add(upstream);
    upstream.once('timeout', () =>
      upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'UND_ERR_CONNECT_TIMEOUT' })),
    );
    // `connecting` is already false when a refused dial reports its error: track it ourselves.
    let established = false;
    upstream.once('error', (e) => {
      if (!established) {
        const err = toEgressError(e, { where });
        ctx.audit(`connect://${where}`, decision, started, {
          method: 'CONNECT',
          action,
          addresses: verdict.addresses,
          failure: err.code,
        });
        refuseTunnel(client, err.decision ?? deny(err.code, err.message), 502);
      }
      client.destroy();
    });
    upstream.once('connect', () => {
      established = true;
      upstream.setTimeout(0);
      ctx.audit(`connect://${where}`, decision, started, {
        method: 'CONNECT',
        action,
        addresses: verdict.addresses,
        dialled: ip,
      });
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Either side going away ends the other.
    upstream.on('close', () => {
      ctx.sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  };
}
