import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DEFAULT_MAX_JSON_DEPTH, TrustError, checkJsonText, type AuditSink } from '@trust/core';
import { answerAndDrain } from '@trust/agent-runtime/host';
import {
  DEFAULT_CONTROL_TIMEOUTS,
  DEFAULT_MAX_CONNECTIONS,
  limitConnections,
  serverTimeoutOptions,
  type ControlTimeouts,
} from './connection-limits.js';
import type { ControlAgents, PluginReport, SandboxRunView } from './agent-registry.js';
import type { AuditLogView } from './audit-timeline.js';
import { controlError, toErrorResponse } from './control-error.js';
import { controlOwner, createRoutes, type Route } from './control-routes.js';
import type { PluginActionHooks } from './plugin-routes.js';
import type { PolicyFileStore } from './policy-file-routes.js';
import { evaluateBearer, loadOrCreateToken } from './control-token.js';
import { createEventHub } from './event-hub.js';
import { createGuardSettings, evaluateControlRequest } from './request-guard.js';
import { readJsonBody, readLimited } from './request-body.js';
import { CSP_REPORT_PATH, buildCsp, setCommonHeaders } from './security-headers.js';
import { serveStatic } from './static-files.js';
import type { SandboxControl } from './sandbox-routes.js';
import { handleMeshRequest, MESH_INBOX_PREFIX } from '@trust/agent-runtime/messaging';
import type { LocalMesh } from '@trust/agent-runtime';
import { createMeshWsServer, type MeshWsServerOptions } from './mesh-ws-server.js';
import { controlServerOptionsSchema } from './control-options.js';
import { checkOptions } from './strict-options.js';

const API_PREFIX = '/api/v1';

/** Options of {@link createControlServer}. */
export interface ControlServerOptions {
  /** The workspace's agents. */
  readonly agents: ControlAgents;
  /** The bearer token to require. Omitted: read from / created in `tokenFile`, else generated. */
  readonly token?: string;
  /** Where the token lives (created with mode 0600 on first start). */
  readonly tokenFile?: string;
  /** 0 or omitted: an ephemeral port. */
  readonly port?: number;
  /** Loopback address to bind: `127.0.0.1` (default) or `::1`. Anything else needs `allowLan`. */
  readonly host?: string;
  /** Explicit opt-in to bind a non-loopback address; `allowedHosts` then names the LAN Host values. */
  readonly allowLan?: boolean;
  /** Extra `host:port` values accepted in the Host header (LAN names). `[]`/omitted: loopback names only. */
  readonly allowedHosts?: readonly string[];
  /** Folder of the built studio. Omitted: no pages are served, only the API. */
  readonly studioDir?: string;
  /** Overrides the Content-Security-Policy (tests only; the default is the studio policy). */
  readonly csp?: string;
  /** Largest JSON body accepted, in bytes. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Host data for the plugin inspector. Omitted: the view says none is provided. */
  readonly plugins?: () => PluginReport[] | Promise<PluginReport[]>;
  /** Host data for the sandbox-runs view. Omitted: the view says none is provided. */
  readonly sandboxRuns?: () => SandboxRunView[] | Promise<SandboxRunView[]>;
  /**
   * The host's own decision logs for the audit timeline (e.g. the control edge log, sandbox runs
   * and their egress), merged with every agent's chain by `GET /audit`. Omitted: agents only.
   */
  readonly auditLogs?: () => AuditLogView[] | Promise<AuditLogView[]>;
  /**
   * Values for `{ "env": NAME }` header injections when the studio checks an egress policy
   * (`POST /policy/check`); the values are never sent back. Omitted: none.
   */
  readonly policyEnv?: () => Readonly<Record<string, string | undefined>>;
  /**
   * The host's egress policy file, read and saved by the studio's policy editor
   * (`GET`/`PUT /policy/file`, saves hash-checked and validated). Omitted: those routes answer 501.
   */
  readonly policyFile?: PolicyFileStore;
  /** Starts and follows sandbox runs for the studio (`/sandbox/…` routes). Omitted: those routes answer 501. */
  readonly sandboxControl?: SandboxControl;
  /**
   * The agents that receive mesh mail here (`POST /mesh/v1/inbox/<did>`). The route needs no owner
   * token: the message signature is the credential and each agent's ingress decides (receive is
   * off by default). Omitted: the route does not exist.
   */
  readonly mesh?: LocalMesh;
  /**
   * The mesh WebSocket (`GET /mesh/v1/ws/<did>`), served whenever `mesh` is given: the server
   * issues a nonce, the client signs it with both DIDs, then each frame is one message for the
   * agent's ingress. These options tune its caps; `false` turns the endpoint off.
   */
  readonly meshWebSocket?: MeshWsServerOptions | false;
  /**
   * Deadlines for slow or idle clients. Defaults: {@link DEFAULT_CONTROL_TIMEOUTS}, so a client
   * dripping its request or sending nothing is closed within 11 s.
   */
  readonly timeouts?: Partial<ControlTimeouts>;
  /** Open connections at once (upgraded mesh WebSockets included). Default 128; more are answered 503 CONTROL_BUSY. */
  readonly maxConnections?: number;
  /**
   * Where refusals at the server's edge are recorded (a body nested too deep, a connection over
   * the cap). Refusals inside an agent go to that agent's own log. Omitted: not recorded.
   */
  readonly audit?: AuditSink;
  /** The studio's plugin actions (load, call, unload, upload), run by the host. Omitted: NOT_IMPLEMENTED. */
  readonly pluginActions?: PluginActionHooks;
  /** Called on unexpected handler errors (the client only sees CONTROL_INTERNAL). */
  readonly onError?: (err: unknown) => void;
}

/** A running control server. */
export interface ControlServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** CSP violation reports received so far (most recent last, at most 200). */
  cspReports(): readonly unknown[];
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1']);

/**
 * Starts the owner's control API (and, with `studioDir`, the studio pages) on loopback.
 *
 * Every request passes, in order: the Host allow-list, the no-token-in-query rule, the
 * Origin / Sec-Fetch-Site same-origin rule; every `/api/` request then needs the bearer token.
 * Static studio files carry no data and need no token.
 *
 * @example
 * const server = await createControlServer({ agents, tokenFile: join(dir, '.trust/control-token'), studioDir });
 * console.log(`${server.url}/#token=${server.token}`);
 * await server.close();
 */
export async function createControlServer(options: ControlServerOptions): Promise<ControlServer> {
  checkOptions('createControlServer', controlServerOptionsSchema, options);
  const bindHost = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(bindHost) && options.allowLan !== true) {
    throw controlError(
      'CONTROL_BAD_REQUEST',
      `refusing to bind ${bindHost}: the control API is loopback-only`,
      'pass allowLan: true to expose it on the network deliberately',
    );
  }
  const token = loadOrCreateToken({
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
  });
  const limit = options.maxBodyBytes ?? 64 * 1024;
  const csp = options.csp ?? buildCsp();
  const reports: unknown[] = [];
  const hub = createEventHub();
  const unsubscribe = options.agents.subscribe?.((e) => hub.publish(e));
  const routes = createRoutes(options.agents, {
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    ...(options.sandboxRuns === undefined ? {} : { sandboxRuns: options.sandboxRuns }),
    ...(options.auditLogs === undefined ? {} : { auditLogs: options.auditLogs }),
    ...(options.policyEnv === undefined ? {} : { policyEnv: options.policyEnv }),
    ...(options.policyFile === undefined ? {} : { policyFile: options.policyFile }),
    ...(options.sandboxControl === undefined ? {} : { sandboxControl: options.sandboxControl }),
    cspReports: () => reports.slice(),
    ...options.pluginActions,
  });
  let guard = createGuardSettings(0);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    setCommonHeaders(res);
    res.setHeader('Content-Security-Policy', csp);
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const gate = evaluateControlRequest(
      { method, url: rawUrl, headers: req.headers, rawHeaders: req.rawHeaders },
      guard,
    );
    if (!gate.allow) throw controlError(gate.code as 'CONTROL_CROSS_ORIGIN', gate.reason, gate.hint);
    const path = rawUrl.split('?')[0]!;

    if (options.mesh !== undefined && path.startsWith(MESH_INBOX_PREFIX)) {
      handleMeshRequest(options.mesh, req, res, Math.min(limit * 4, 256 * 1024));
      return;
    }

    if (path === CSP_REPORT_PATH) {
      if (method !== 'POST') throw controlError('CONTROL_METHOD_NOT_ALLOWED', 'CSP reports are POSTed');
      const text = await readLimited(req, 16 * 1024);
      // No token on this route: a report nested too deep is refused before it is parsed or kept.
      const shape = checkJsonText(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH });
      if (!shape.allow)
        throw new TrustError(shape.code, `the CSP report ${shape.reason.replace(/^the input /, '')}`, {
          decision: shape,
        });
      try {
        reports.push(JSON.parse(text) as unknown);
      } catch {
        reports.push({ unparsed: text.slice(0, 1000) });
      }
      if (reports.length > 200) reports.shift();
      res.statusCode = 204;
      res.end();
      return;
    }

    if (path === API_PREFIX || path.startsWith(API_PREFIX + '/')) {
      const auth = evaluateBearer(req.headers.authorization, token);
      if (!auth.allow) throw controlError(auth.code as 'CONTROL_TOKEN_MISSING', auth.reason, auth.hint);
      const sub = path.slice(API_PREFIX.length);
      if (sub === '/events' && method === 'GET') {
        const agent = new URLSearchParams(rawUrl.split('?')[1] ?? '').get('agent') ?? undefined;
        hub.attach(res, agent);
        return;
      }
      const { route, params, pathMatched } = match(routes, method, sub);
      if (route === undefined) {
        throw pathMatched
          ? controlError('CONTROL_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`)
          : controlError(
              'CONTROL_NOT_FOUND',
              `no route ${method} ${path}`,
              'see the route list in the agent-runtime README',
            );
      }
      const body = method === 'GET' ? undefined : await readJsonBody(req, route.maxBodyBytes ?? limit);
      const query = new URLSearchParams(rawUrl.split('?')[1] ?? '');
      const result = await route.handler({ params, body, by: controlOwner(), query });
      sendJson(res, 200, result);
      return;
    }

    if (method !== 'GET' && method !== 'HEAD')
      throw controlError('CONTROL_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`);
    if (options.studioDir === undefined)
      throw controlError('CONTROL_NOT_FOUND', 'this server does not serve the studio');
    await serveStatic(options.studioDir, path, res, method === 'HEAD');
  };

  const meshWs =
    options.mesh !== undefined && options.meshWebSocket !== false
      ? createMeshWsServer({
          mesh: options.mesh,
          guard: () => guard,
          ...(options.meshWebSocket === undefined ? {} : { options: options.meshWebSocket }),
        })
      : undefined;

  const edgeAudit = (action: string, target: string, code: string, details: Record<string, unknown>) =>
    options.audit?.record({
      principal: { kind: 'peer', id: String(details['remote'] ?? 'unknown') },
      action,
      target,
      decision: 'deny',
      rule: 'control-edge',
      code,
      details,
    });
  const timeouts: ControlTimeouts = { ...DEFAULT_CONTROL_TIMEOUTS, ...options.timeouts };
  const server = createServer(serverTimeoutOptions(timeouts), (req, res) => {
    if (limiter.isRefused(req.socket)) return;
    handle(req, res).catch((err: unknown) => {
      const { status, body } = toErrorResponse(err);
      if (status === 500) options.onError?.(err);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (status === 400 && body.error.code === 'INPUT_TOO_DEEP') {
        edgeAudit('control.request', (req.url ?? '/').split('?')[0]!.slice(0, 200), body.error.code, {
          remote: req.socket.remoteAddress,
          method: req.method,
        });
      }
      // A refused oversized body: answer while the rest is read and discarded (bounded), never
      // close on unread bytes, so the client reads the answer instead of a connection reset.
      if (status === 413) answerAndDrain(req, () => sendJson(res, status, body));
      else sendJson(res, status, body);
    });
  });
  const limiter = limitConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, (remote) =>
    edgeAudit('control.connect', 'connection', 'CONTROL_BUSY', {
      remote,
      limit: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    }),
  );
  // Upgrades other than the mesh WebSocket are refused; the HTTP server would otherwise leave them hanging.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (limiter.isRefused(req.socket)) return;
    if (meshWs !== undefined) {
      meshWs.handleUpgrade(req, socket, head);
      return;
    }
    socket.once('finish', () => socket.destroy());
    socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, bindHost, () => resolve());
    });
  } catch (err) {
    // e.g. EADDRINUSE: leave nothing subscribed or ticking behind.
    unsubscribe?.();
    hub.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  guard = createGuardSettings(port, options.allowedHosts ?? []);
  const hostPart = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${hostPart}:${port}`,
    port,
    token,
    cspReports: () => reports.slice(),
    close: async () => {
      unsubscribe?.();
      hub.close();
      meshWs?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function match(
  routes: readonly Route[],
  method: string,
  path: string,
): { route?: Route; params: Record<string, string>; pathMatched: boolean } {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (m === null) continue;
    pathMatched = true;
    if (route.method === method) return { route, params: { ...(m.groups ?? {}) }, pathMatched };
  }
  return { params: {}, pathMatched };
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
