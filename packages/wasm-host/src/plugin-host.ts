import {
  createPrincipal,
  parseCapabilities,
  tryParseCapabilities,
  type AuditSink,
  type CapabilitySet,
  type EgressPolicy,
  type Problem,
  type TrustError,
} from '@trust/core';
import {
  describeComponent,
  diffInterfaces,
  type ComponentDescription,
  type ComponentInterface,
} from './component-info.js';
import { sha256Hex } from './hash.js';
import { wasmError } from './errors.js';
import { checkImports } from './import-requirements.js';
import { planImports, type ImportPlan } from './import-plan.js';
import { pinGrantDirs, type PinnedDir } from './fs/pin-grants.js';
import type { PackageManifest } from './manifest.js';
import { pluginBrokerOptions } from './net-broker.js';
import { resolvePluginHostOptions, type PluginHostOptions } from './plugin-host-options.js';
import type { PluginSource } from './package-source.js';
import { callFailureError } from './call-error.js';
import { readPlugin } from './read-plugin.js';
import { createCallQueue } from './call-queue.js';
import type { CallOutcome } from './plugin-runtime.js';
import { inThreadRefusal, startInThreadRuntime } from './in-thread-runtime.js';
import { jspiAsyncExports } from './jspi.js';
import type { VerifiedSigner } from './signing.js';
import { transpileComponent, type TranspiledComponent } from './transpile-cache.js';
import { startWorkerRuntime, type WorkerOutcome } from './worker-runtime.js';

export type { PluginHostOptions, PluginLimits } from './plugin-host-options.js';

/** Options of `host.load`. */
export interface LoadOptions {
  /** Capability list that replaces (or, with `grantMode: 'narrow'`, intersects) the manifest's. */
  readonly grants?: readonly string[];
  readonly grantMode?: 'replace' | 'narrow';
  /** Per-plugin egress policy; replaces the host-wide one for this plugin. */
  readonly egress?: EgressPolicy;
  /** The interface the host expects (from `describeComponent(reference).interface`), or its hash. */
  readonly interface?: ComponentInterface | string;
  /** Plugin id for the principal and audit (default `<name>#<n>`). */
  readonly id?: string;
  readonly isolation?: 'worker' | 'in-thread';
  /** Receives captured guest output as it arrives, labelled with the plugin id. */
  readonly onOutput?: (stream: 'stdout' | 'stderr', text: string, pluginId: string) => void;
  /**
   * Called with each fs grant's directory as the host opened it (`fd` is the descriptor the guest
   * will be confined beneath), before the guest starts; throw to refuse the load. See pinGrantDirs.
   */
  readonly fsRootCheck?: (dir: PinnedDir) => void;
}

/** A loaded plugin instance. */
export interface Plugin {
  readonly id: string;
  readonly name: string;
  readonly version: string | undefined;
  /** SHA-256 of the component bytes. */
  readonly digest: string;
  readonly capabilities: readonly string[];
  /**
   * What loaded but not as written: duplicate capabilities (`CAPABILITY_DUPLICATE`) and fs entries
   * whose path does not exist on this host (`WASM_FS_GRANT_MISSING`: the guest has no such preopen).
   * `[]` when there are none.
   */
  readonly warnings: readonly Problem[];
  readonly signer: VerifiedSigner | undefined;
  readonly interface: ComponentInterface;
  /** Calls an export (`'env-count'` or `'envCount'`; `iface.fn` for interface exports). */
  call(name: string, ...args: unknown[]): Promise<unknown>;
  /** Captured stdout/stderr (only streams the plugin was granted). */
  output(): { stdout: string; stderr: string };
  /** The error that killed the plugin, or `undefined` while it is alive. */
  readonly dead: TrustError | undefined;
  dispose(): Promise<void>;
}

export interface PluginHost {
  load(source: PluginSource, options?: LoadOptions): Promise<Plugin>;
  /** Disposes every plugin this host loaded. */
  close(): Promise<void>;
}

/**
 * Creates a plugin host. Loading is fail-closed and works on bytes read once:
 * read → verify signature → parse manifest → choose capabilities → read the component's real
 * imports/exports → check the interface → check every import against the grants (and the egress
 * policy) → transpile (cached) → instantiate with a fresh deny-all WASI import object.
 *
 * @example
 * const host = createPluginHost({ trustedKeys: [publicKey], cacheDir: '.cache/wasm' });
 * const plugin = await host.load('./greeter');
 * console.log(await plugin.call('greet', 'world'));
 * await host.close();
 */
export function createPluginHost(options: PluginHostOptions = {}): PluginHost {
  const resolved = resolvePluginHostOptions(options);
  const { requireSignature, trustedKeys, limits } = resolved;
  const hostEnv = resolved.env;
  const transpiled = new Map<string, Promise<TranspiledComponent>>();
  const descriptions = new Map<string, Promise<ComponentDescription>>();
  const live = new Set<Plugin>();
  let counter = 0;

  const audit = (input: Parameters<AuditSink['record']>[0]) => resolved.audit?.record(input);

  async function load(source: PluginSource, loadOptions: LoadOptions = {}): Promise<Plugin> {
    const target = typeof source === 'string' ? source : source instanceof Uint8Array ? '<bytes>' : source.source;
    let principalId = loadOptions.id ?? `plugin#${++counter}`;
    try {
      return await loadInner(source, loadOptions, (id) => (principalId = id));
    } catch (e) {
      const err = e as TrustError;
      audit({
        principal: createPrincipal('plugin', principalId),
        action: 'plugin.load',
        target,
        decision: 'deny',
        code: err.code ?? 'WASM_LOAD_FAILED',
        details: { reason: err.message },
      });
      throw e;
    }
  }

  async function loadInner(source: PluginSource, lo: LoadOptions, setId: (id: string) => void): Promise<Plugin> {
    const { signer, manifest, component } = await readPlugin(source, {
      limits: limits.package,
      requireSignature,
      trustedKeys,
    });
    const name = manifest?.name ?? 'component';
    const id = lo.id ?? `${name}#${++counter}`;
    setId(id);
    const principal = createPrincipal('plugin', id);

    // capabilities: the manifest's, replaced or narrowed by load-time grants
    let caps: CapabilitySet = manifest?.capabilitySet ?? parseCapabilities([]);
    if (lo.grants) {
      const parsed = tryParseCapabilities(lo.grants);
      if (!parsed.ok) {
        const unknown = parsed.error.problems.some((p) => p.code === 'CAPABILITY_UNKNOWN');
        throw wasmError(
          unknown ? 'WASM_CAPABILITY_UNKNOWN' : 'WASM_CAPABILITY_INVALID',
          `load-time grants are invalid: ${parsed.error.message}`,
          { problems: parsed.error.problems, hint: parsed.error.hint, cause: parsed.error },
        );
      }
      caps = lo.grantMode === 'narrow' ? caps.narrow(parsed.set) : parsed.set;
    }
    const policy = lo.egress ?? resolved.egress;
    const wantsBrokered = caps.has('http') || caps.has('tcp') || caps.has('udp');
    if (wantsBrokered && !policy) {
      const named = (['http', 'tcp', 'udp'] as const).filter((c) => caps.has(c));
      throw wasmError(
        'WASM_EGRESS_POLICY_MISSING',
        `plugin ${id} declares ${named.join(', ')} but the host has no egress policy; ` +
          'network capabilities need both keys',
        {
          hint: 'pass egress: <EgressPolicy> to createPluginHost() or host.load(), or remove the capability',
        },
      );
    }

    const digest = sha256Hex(component);
    let described = descriptions.get(digest);
    if (!described) {
      described = describeComponent(component);
      descriptions.set(digest, described);
      described.catch(() => descriptions.delete(digest));
    }
    const info = await described;
    if (lo.interface !== undefined) {
      const expectedHash = typeof lo.interface === 'string' ? lo.interface : lo.interface.hash;
      if (expectedHash !== info.interface.hash) {
        const diffs =
          typeof lo.interface === 'string'
            ? [`interface hash ${info.interface.hash} != expected ${expectedHash}`]
            : diffInterfaces(lo.interface, info.interface);
        throw wasmError(
          'WASM_INTERFACE_MISMATCH',
          `plugin ${id} does not implement the expected interface: ${diffs.join('; ')}`,
          {
            hint: 'rebuild the plugin against the interface the host expects',
            problems: diffs.map((d) => ({ code: 'WASM_INTERFACE_MISMATCH', message: d })),
          },
        );
      }
    }
    const checks = checkImports(info.imports, caps, Boolean(policy));
    const unsatisfied = checks.filter((c) => !c.satisfied);
    if (unsatisfied.length > 0) {
      throw wasmError(
        'WASM_IMPORT_UNSATISFIED',
        `plugin ${id} imports what its grants do not provide: ` +
          unsatisfied.map((c) => `${c.import} (${c.reason})`).join('; '),
        {
          hint: unsatisfied[0]?.hint,
          problems: unsatisfied.map((c) => ({
            code: 'WASM_IMPORT_UNSATISFIED',
            path: c.import,
            message: c.reason ?? 'unsatisfied',
            ...(c.hint ? { hint: c.hint } : {}),
          })),
        },
      );
    }
    const isolation = lo.isolation ?? resolved.isolation;
    const network = caps.egressTier() !== 'none';
    const refusal = isolation === 'in-thread' ? inThreadRefusal(id, caps) : undefined;
    if (refusal) throw refusal;
    // in-thread with network (JSPI only, see in-thread-runtime.ts) runs JSPI glue
    const jspiExports =
      isolation === 'in-thread' && network ? jspiAsyncExports(Object.keys(info.interface.items)) : undefined;
    for (const cap of caps.toStrings())
      audit({
        principal,
        action: 'plugin.grant',
        target: cap,
        decision: 'allow',
        rule: lo.grants ? `load-grants:${lo.grantMode ?? 'replace'}` : 'manifest',
      });

    const glueKey = jspiExports ? `${info.digest}-jspi` : info.digest;
    let t = transpiled.get(glueKey);
    if (!t) {
      t = transpileComponent(component, resolved.cacheDir, jspiExports);
      transpiled.set(glueKey, t);
      t.catch(() => transpiled.delete(glueKey));
    }
    const tc = await t;
    const pinned = pinGrantDirs(caps.fsGrants, lo.fsRootCheck); // opened now: confines the guest for its lifetime
    const warnings: Problem[] = [...caps.warnings];
    for (const skip of pinned.skipped) {
      const cap = `fs:${skip.mode}:${skip.path}`;
      warnings.push({
        code: 'WASM_FS_GRANT_MISSING',
        severity: 'warning',
        path: cap,
        message: `${cap} is skipped: ${skip.reason} on this host, so the plugin sees no such directory`,
        hint: `create ${skip.path} before loading the plugin if it should have it`,
      });
      audit({
        principal,
        action: 'plugin.grant.skip',
        target: cap,
        decision: 'deny',
        rule: 'grant-exists',
        code: 'WASM_FS_GRANT_MISSING',
        details: { reason: skip.reason },
      });
    }
    let plugin: Plugin;
    try {
      const plan = planImports({
        pluginId: id,
        caps,
        hostEnv,
        args: manifest?.args ?? [],
        pinnedDirs: pinned.dirs,
        skippedDirs: pinned.skipped,
        fsRoots: pinned.roots,
        brokeredNetwork: network,
      });
      plugin = await start({
        id,
        name,
        manifest,
        info,
        signer,
        caps,
        plan,
        tc,
        policy,
        principal,
        isolation,
        lo,
        warnings,
        releaseFs: pinned.close,
      });
    } catch (e) {
      pinned.close();
      throw e;
    }
    audit({
      principal,
      action: 'plugin.load',
      target: `${name}@${manifest?.version ?? '-'}`,
      decision: 'allow',
      rule: signer ? `signed:${signer.keyId}` : 'unsigned',
      details: { digest: info.digest, isolation, capabilities: caps.toStrings() },
    });
    live.add(plugin);
    return plugin;
  }

  async function start(s: {
    id: string;
    name: string;
    manifest: PackageManifest | undefined;
    info: Awaited<ReturnType<typeof describeComponent>>;
    signer: VerifiedSigner | undefined;
    caps: CapabilitySet;
    plan: ImportPlan;
    tc: TranspiledComponent;
    policy: EgressPolicy | undefined;
    principal: ReturnType<typeof createPrincipal>;
    isolation: 'worker' | 'in-thread';
    lo: LoadOptions;
    warnings: readonly Problem[];
    releaseFs: () => void;
  }): Promise<Plugin> {
    const out = { stdout: '', stderr: '' };
    const dec = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    const onOutput = (stream: 'stdout' | 'stderr', data: Uint8Array) => {
      const text = dec[stream].decode(data, { stream: true });
      out[stream] = (out[stream] + text).slice(-limits.maxOutputBytes);
      s.lo.onOutput?.(stream, text, s.id);
    };
    let dead: TrustError | undefined;
    const failureError = (o: Extract<CallOutcome, { ok: false }>, name: string) =>
      callFailureError(s.id, o, name, s.info.exports);
    const deadError = () =>
      wasmError('WASM_PLUGIN_DEAD', `plugin ${s.id} is dead (${dead?.code}): ${dead?.message}`, {
        cause: dead,
        hint: 'load the plugin again',
      });

    let invoke: (name: string, args: unknown[]) => unknown | Promise<unknown>;
    let callSync: ((name: string, args: unknown[]) => unknown) | undefined;
    let shutdown: () => Promise<void>;

    if (s.isolation === 'in-thread') {
      const network = s.plan.http;
      const runtime = await startInThreadRuntime({
        glueUrl: s.tc.glueUrl,
        modules: s.tc.modules,
        plan: s.plan,
        onOutput,
        maxMemoryBytes: limits.maxMemoryBytes,
        maxHttpRequestBytes: limits.maxHttpRequestBytes,
        ...(network ? { broker: pluginBrokerOptions(s, resolved) } : {}),
      }).catch((cause: unknown) => {
        throw wasmError(
          'WASM_INSTANTIATE_FAILED',
          `plugin ${s.id} failed to instantiate: ${String((cause as Error)?.message ?? cause)}`,
          { cause, hint: 'the component could not be linked or its start function failed' },
        );
      });
      const settle = (name: string, o: CallOutcome): unknown => {
        if (o.ok) return o.value;
        const err = failureError(o, name);
        if (o.fatal) dead = err;
        throw err;
      };
      const { callSync: sync, callAsync } = runtime;
      if (sync) callSync = (name, args) => settle(name, sync(name, args));
      invoke = callAsync
        ? (name, args) => callAsync(name, args).then((o) => settle(name, o))
        : async (name, args) => callSync!(name, args);
      shutdown = async () => runtime.close();
    } else {
      const network = s.plan.http || s.plan.tcp || s.plan.udp || s.plan.coarse;
      const runtime = await startWorkerRuntime({
        id: s.id,
        glueUrl: s.tc.glueUrl,
        modules: s.tc.modules,
        plan: s.plan,
        callTimeoutMs: limits.callTimeoutMs,
        maxMemoryBytes: limits.maxMemoryBytes,
        maxHeapMb: limits.maxHeapMb,
        maxOutputBytes: limits.maxOutputBytes,
        maxCallBytes: limits.maxCallBytes,
        maxHttpRequestBytes: limits.maxHttpRequestBytes,
        syncWaitMs: limits.syncWaitMs,
        ...(network ? { broker: pluginBrokerOptions(s, resolved) } : {}),
        onOutput,
        onDeath: (err) => {
          dead ??= err;
        },
      });
      const finish = (name: string, o: WorkerOutcome): unknown => {
        for (const [stream, bytes] of o.output) onOutput(stream, bytes);
        if (o.ok) return o.value;
        const err = failureError(o, name);
        if (o.fatal) {
          dead ??= err;
          void runtime.terminate();
        }
        throw err;
      };
      invoke = (name, args) => {
        const r = runtime.call(name, args);
        return r instanceof Promise ? r.then((o) => finish(name, o)) : finish(name, r);
      };
      shutdown = () => runtime.terminate();
    }

    const enqueue = createCallQueue({ invoke, callSync, isDead: () => dead !== undefined, deadError });
    const plugin: Plugin = {
      id: s.id,
      name: s.name,
      version: s.manifest?.version,
      digest: s.info.digest,
      capabilities: s.caps.toStrings(),
      warnings: Object.freeze([...s.warnings]),
      signer: s.signer,
      interface: s.info.interface,
      get dead() {
        return dead;
      },
      call: (name, ...args) => enqueue(name, args),
      output: () => ({ ...out }),
      async dispose() {
        live.delete(plugin);
        await shutdown();
        s.releaseFs();
      },
    };
    return plugin;
  }

  return {
    load,
    async close() {
      await Promise.all([...live].map((p) => p.dispose()));
    },
  };
}
