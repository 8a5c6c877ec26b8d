import { lstatSync } from 'node:fs';
import { type AuditSink, type EgressPolicy, isTrustError } from '@trust/core';
import { type EgressClient, type GuardOptions, createEgressClient } from '@trust/egress';
import {
  type CompiledWorkspacePolicy,
  DEFAULT_COMPILED,
  type FileStamp,
  compileWorkspacePolicy,
  readPolicyFile,
  stampOf,
} from './policy-source.js';

/** Which policy the engine runs now, and why a newer file is not running (if it is not). */
export interface WorkspaceEgressStatus {
  /** The policy file, e.g. `<workspace>/egress-policy.json`. */
  readonly file: string;
  /** `file`: the file's policy; `default`: no file, the ADF default (public internet, no local addresses). */
  readonly source: 'file' | 'default';
  /** SHA-256 of the running file's text; null for the default. */
  readonly sha256: string | null;
  /** Set when the file on disk was refused: the previous policy keeps running. */
  readonly problem?: { readonly code: string; readonly message: string; readonly hint?: string };
}

/** Options of {@link createWorkspaceEgress}. */
export interface WorkspaceEgressOptions {
  /** The workspace policy file (format `v: 1`); absent file: the ADF default. */
  readonly file: string;
  /** Values of `{ "env": NAME }` header injections. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Receives one event per decision (route it with `createAuditRouter`). */
  readonly audit: AuditSink;
  /** Ports never reachable on a local address (the control server's); read when a client is built. */
  readonly protectedPorts: () => readonly number[];
  /** Name resolver of the guard (tests: a stub); default the system's. */
  readonly resolve?: (host: string) => Promise<string[]>;
  /** Told when a changed file is refused (the old policy keeps running). */
  readonly onProblem?: (status: WorkspaceEgressStatus) => void;
}

/** Guard modes an agent asks for: `default`, or `allow-local` (its config's `security.allow_local_fetch`). */
export type WorkspaceClientMode = 'default' | 'allow-local';

/** The workspace's one egress engine. */
export interface WorkspaceEgress {
  /** The running policy, for enforcement points that take an `EgressPolicy` (sandboxes, plugins). */
  readonly policy: EgressPolicy;
  /** The guard options of the running policy (mode, CIDRs, protected ports, resolver). */
  guard(mode?: WorkspaceClientMode): GuardOptions;
  /** A client that always runs the current policy: a save applies to its next request. */
  client(mode?: WorkspaceClientMode): EgressClient;
  /** Reads the file again now (a save calls this); also done before every request when the file changed. */
  reload(): WorkspaceEgressStatus;
  status(): WorkspaceEgressStatus;
  close(): Promise<void>;
}

interface Generation {
  readonly compiled: CompiledWorkspacePolicy;
  readonly clients: Map<WorkspaceClientMode, EgressClient>;
}

/**
 * One egress engine per workspace, compiled from `<workspace>/egress-policy.json`. Every request
 * first checks whether the file changed (inode, size, times); a changed file is compiled once and
 * replaces the running policy for new requests (requests in flight finish under the old one). A
 * file the validator refuses keeps the previous policy running and is reported by `status()`
 * and `onProblem`. No file: the ADF default (`ADF_DEFAULT_POLICY`). The control port is protected
 * in every mode, whatever the file says.
 *
 * @example
 * const egress = createWorkspaceEgress({ file, env: process.env, audit, protectedPorts: () => [port] });
 * await egress.client().fetch('https://example.com/', undefined, { principal });
 */
export function createWorkspaceEgress(options: WorkspaceEgressOptions): WorkspaceEgress {
  let stamp: FileStamp = { exists: false, key: '' };
  let problem: WorkspaceEgressStatus['problem'];
  let gen: Generation = { compiled: DEFAULT_COMPILED, clients: new Map() };
  let closed = false;
  const retired: Promise<void>[] = [];

  const status = (): WorkspaceEgressStatus => ({
    file: options.file,
    source: gen.compiled.source,
    sha256: gen.compiled.sha256,
    ...(problem ? { problem } : {}),
  });

  const swap = (compiled: CompiledWorkspacePolicy) => {
    const old = gen;
    gen = { compiled, clients: new Map() };
    for (const c of old.clients.values()) retired.push(c.close());
  };

  const load = (): WorkspaceEgressStatus => {
    try {
      const read = readPolicyFile(options.file);
      if (read === undefined) {
        stamp = { exists: false, key: '' };
        problem = undefined;
        if (gen.compiled.source !== 'default') swap(DEFAULT_COMPILED);
        return status();
      }
      stamp = read.stamp;
      const compiled = compileWorkspacePolicy(read.text, options.env, options.file);
      problem = undefined;
      if (compiled.sha256 !== gen.compiled.sha256) swap(compiled);
    } catch (e) {
      if (!isTrustError(e)) throw e;
      problem = { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
      options.onProblem?.(status());
    }
    return status();
  };

  const fresh = (): Generation => {
    let now: FileStamp;
    try {
      now = stampOf(lstatSync(options.file));
    } catch {
      now = { exists: false, key: '' };
    }
    if (now.exists !== stamp.exists || now.key !== stamp.key) load();
    return gen;
  };

  const guardOf = (compiled: CompiledWorkspacePolicy, mode: WorkspaceClientMode): GuardOptions => {
    const own = compiled.guard;
    // The owner's strict wins over an agent's allow-local; otherwise the agent's mode applies.
    const chosen = own.mode === 'strict' ? 'strict' : mode === 'allow-local' ? 'allow-local' : (own.mode ?? 'default');
    const ports = [...new Set([...(own.protectedPorts ?? []), ...options.protectedPorts()])];
    return {
      ...own,
      mode: chosen,
      ...(ports.length ? { protectedPorts: ports } : {}),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    };
  };

  const real = (mode: WorkspaceClientMode): EgressClient => {
    if (closed) throw new Error('the workspace egress engine is closed');
    const g = fresh();
    let c = g.clients.get(mode);
    if (c === undefined) {
      c = createEgressClient({ policy: g.compiled.policy, guard: guardOf(g.compiled, mode), audit: options.audit });
      g.clients.set(mode, c);
    }
    return c;
  };

  const facade = (mode: WorkspaceClientMode): EgressClient => ({
    fetch: (url, init, call) => real(mode).fetch(url, init, call),
    request: (url, init, call) => real(mode).request(url, init, call),
    webSocket: (url, o) => real(mode).webSocket(url, o),
    connectTcp: (host, port, call) => real(mode).connectTcp(host, port, call),
    sendUdp: (host, port, data, call) => real(mode).sendUdp(host, port, data, call),
    openUdp: (host, port, o) => real(mode).openUdp(host, port, o),
    get guard() {
      return real(mode).guard;
    },
    // The engine owns the real clients: closing a facade closes nothing shared.
    close: async () => {},
  });

  const policy: EgressPolicy = {
    authorizeHttp: (req, ctx) => fresh().compiled.policy.authorizeHttp(req, ctx),
    authorizeTcp: (peer, ctx) => {
      const p = fresh().compiled.policy;
      return p.authorizeTcp
        ? p.authorizeTcp(peer, ctx)
        : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'the workspace policy has no tcp section' };
    },
    authorizeUdp: (peer, ctx) => {
      const p = fresh().compiled.policy;
      return p.authorizeUdp
        ? p.authorizeUdp(peer, ctx)
        : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'the workspace policy has no udp section' };
    },
  };

  load();
  const clients = new Map<WorkspaceClientMode, EgressClient>();
  return {
    policy,
    guard: (mode = 'default') => guardOf(fresh().compiled, mode),
    client(mode = 'default') {
      let c = clients.get(mode);
      if (c === undefined) {
        c = facade(mode);
        clients.set(mode, c);
      }
      return c;
    },
    reload: load,
    status,
    async close() {
      closed = true;
      for (const c of gen.clients.values()) retired.push(c.close());
      gen.clients.clear();
      await Promise.allSettled(retired.splice(0));
    },
  };
}
