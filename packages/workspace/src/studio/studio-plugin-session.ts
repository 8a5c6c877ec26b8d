import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditEvent, AuditSink } from '@trust/core';
import type {
  LoadedPluginView,
  PluginCallView,
  PluginDecisionView,
  PluginReport,
  PluginActionHooks,
} from '../control/index.js';
import { uploadStudioPlugin } from './studio-plugin-upload.js';
import { toJsonResult } from './studio-plugin-result.js';
import { callableNames } from './studio-plugin-exports.js';
import { pluginEgressFor } from './studio-plugin-egress.js';
import { studioFsGuard, type StudioControlPaths } from './studio-plugin-fs-guard.js';

type WasmHost = typeof import('@trust/wasm-host');
type Plugin = import('@trust/wasm-host').Plugin;
type GuardOptions = import('@trust/egress').GuardOptions;

/** Options of {@link createStudioPluginSession}. Every bound has a default. */
export interface StudioPluginSessionOptions {
  /** The workspace's plugins folder: the only place plugins are loaded from and uploaded to. */
  readonly pluginsDir: string;
  /** Key files (text) whose signatures the workspace trusts; a load needs one of them. */
  readonly trustedKeyTexts: readonly string[];
  /** Where each decision is recorded (plugin.grant, plugin.load, egress.*). Also kept in memory, bounded. */
  readonly audit: AuditSink;
  /** Source of `env:NAME` values a grant names. Default: none set. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Transpiled-component cache. Omitted: none. */
  readonly cacheDir?: string;
  /** Plugins loaded at once. Default 4. */
  readonly maxLoaded?: number;
  /** A call's deadline; the plugin's worker is terminated at it. Default 5000 ms. */
  readonly callTimeoutMs?: number;
  /** Output kept per stream per call, in bytes. Default 64 KiB. */
  readonly maxOutputBytes?: number;
  /**
   * The owner's egress policy file for plugins (`<workspace>/egress-policy.json`), read at each load
   * with network grants. Omitted or absent: every network grant is refused (fail closed).
   */
  readonly egressPolicyFile?: string;
  /** Loopback ports no plugin may reach whatever the policy allows (the control server's own). */
  readonly protectedPorts?: () => readonly number[];
  /**
   * The studio's own files and folders (`workspaceControlPaths`), which no fs grant may reach; checked
   * on each grant's directory as the plugin host opened it. `pluginsDir`, `cacheDir` and
   * `egressPolicyFile` are always added.
   */
  readonly controlPaths?: StudioControlPaths;
}

/** The hooks the control server calls, plus `close` for shutdown. */
export type StudioPluginSession = Omit<Required<PluginActionHooks>, 'pluginsLoaded'> & {
  pluginsLoaded(): readonly LoadedPluginView[];
  close(): Promise<void>;
};

interface Entry {
  readonly plugin: Plugin;
  /** The host of a network-granted plugin (its own: its policy and guard); closed on unload. */
  readonly own: { close(): Promise<void> } | undefined;
  readonly callable: ReadonlySet<string>;
  readonly view: Omit<LoadedPluginView, 'dead'>;
  readonly out: { stdout: string; stderr: string };
  busy: boolean;
}

const MAX_DECISIONS = 200;

/**
 * The studio's plugin actions, run here and never in the browser or the control package: load a
 * workspace plugin with grants narrowed from its manifest (a wider grant is refused, never
 * clipped), call an export in its own worker under a deadline, capture its output and every
 * decision recorded for it, unload it, and take an uploaded `.tpkg` (validated and unpacked by
 * the package code). The package is read into memory once; those bytes are inspected and loaded.
 *
 * @example
 * const session = await createStudioPluginSession({ pluginsDir, trustedKeyTexts, audit });
 * const { plugin } = await session.pluginLoad({ source: 'hello', grants: [] });
 * await session.pluginCall(plugin.id, 'add', [2, 3]); // { result: 5, … }
 */
export async function createStudioPluginSession(o: StudioPluginSessionOptions): Promise<StudioPluginSession> {
  const wasm: WasmHost = await import('@trust/wasm-host');
  const { TrustError, parseCapabilities } = await import('@trust/core');
  const trustedKeys = o.trustedKeyTexts.map((t) => wasm.publicKeyOf(wasm.parseKeyFile(t)));
  const maxLoaded = o.maxLoaded ?? 4;
  const maxOut = o.maxOutputBytes ?? 64 * 1024;
  const loaded = new Map<string, Entry>();
  const recent: { seq: number; event: AuditEvent }[] = [];
  let counter = 0;
  let seq = 0;
  const audit: AuditSink = {
    record(input) {
      const event = o.audit.record(input);
      recent.push({ seq: ++seq, event });
      if (recent.length > MAX_DECISIONS) recent.shift();
      return event;
    },
  };
  const hostOptions = {
    trustedKeys,
    requireSignature: true,
    audit,
    env: o.env ?? {},
    ...(o.cacheDir === undefined ? {} : { cacheDir: o.cacheDir }),
    limits: { callTimeoutMs: o.callTimeoutMs ?? 5000, maxOutputBytes: maxOut },
  };
  // No fs grant may reach the studio's own files: checked on each directory as the host opened it.
  const fsRootCheck = studioFsGuard({
    exposed: [
      ...(o.controlPaths?.exposed ?? []),
      ...(o.egressPolicyFile === undefined ? [] : [{ label: 'egress policy', path: o.egressPolicyFile }]),
    ],
    sealed: [
      ...(o.controlPaths?.sealed ?? []),
      { label: 'plugins folder', path: o.pluginsDir },
      ...(o.cacheDir === undefined ? [] : [{ label: 'plugin cache', path: o.cacheDir }]),
    ],
  });
  // Plugins without network grants share this host, which has no egress policy (so it refuses any).
  const host = wasm.createPluginHost(hostOptions);
  const owned = new Set<{ close(): Promise<void> }>();
  const fail = (code: 'STUDIO_PLUGIN_NOT_LOADED', message: string, hint: string) =>
    new TrustError(code, message, { hint });
  // Decisions recorded for this plugin since sequence number `since` (kept: the last MAX_DECISIONS).
  const decisionsOf = (id: string, since: number): PluginDecisionView[] =>
    recent.filter((r) => r.seq > since && r.event.principal.id === id).map((r) => toDecisionView(r.event));
  const viewOf = (e: Entry): LoadedPluginView => {
    const dead = e.plugin.dead;
    return dead === undefined ? e.view : { ...e.view, dead: { code: dead.code, message: dead.message } };
  };
  const entryOf = (id: string): Entry => {
    const e = loaded.get(id);
    if (e === undefined)
      throw fail(
        'STUDIO_PLUGIN_NOT_LOADED',
        `no loaded plugin "${id}"`,
        'load it first; the list is GET /plugins/loaded',
      );
    return e;
  };

  async function readEntry(source: string) {
    const entries = await readdir(o.pluginsDir, { withFileTypes: true }).catch(() => []);
    // The name must be one of the folder's own entries: a package folder or a .tpkg file in it.
    const e = entries.find((x) => x.name === source && (x.isDirectory() || (x.isFile() && x.name.endsWith('.tpkg'))));
    if (e === undefined)
      throw new TrustError('STUDIO_PLUGIN_NOT_FOUND', `no plugin "${source}" in the workspace plugins folder`, {
        hint: 'pick one of the plugins GET /plugins lists, or upload a .tpkg',
      });
    const path = join(o.pluginsDir, e.name);
    return e.isDirectory()
      ? wasm.readPackageDir(path)
      : wasm.readPackageArchive(new Uint8Array(await readFile(path)), {}, e.name);
  }

  return {
    pluginsLoaded: () => [...loaded.values()].map(viewOf),

    async pluginLoad({ source, grants }) {
      if (loaded.size >= maxLoaded)
        throw new TrustError('STUDIO_PLUGIN_LIMIT', `${loaded.size} plugins are loaded, the most the studio allows`, {
          hint: 'unload one first',
        });
      const files = await readEntry(source);
      const report = await wasm.inspectPackage(files, { trustedKeys });
      const requested = report.capabilities.map((c) => c.capability);
      // Narrowing only: every grant must be one the manifest asks for (core's intersection
      // keeps exactly the grants; anything it drops or weakens was wider than the manifest).
      const asked = parseCapabilities(grants);
      const kept = new Set(parseCapabilities(requested).narrow(asked).toStrings());
      const wider = asked.toStrings().filter((g) => !kept.has(g));
      if (wider.length > 0)
        throw new TrustError(
          'STUDIO_PLUGIN_GRANT_WIDER',
          `grants wider than the manifest of ${report.name} are refused: ${wider.join(', ')} ` +
            `(it asks for ${requested.length === 0 ? 'nothing' : requested.join(', ')})`,
          { hint: 'grant a subset of the capabilities the package declares' },
        );
      // Network grants run under the owner's workspace policy, read and validated now (fail closed).
      const egress = await pluginEgressFor([...kept], o.egressPolicyFile, o.env ?? {});
      // A network-granted plugin gets a host of its own: the policy's guard, with the control port protected.
      const own =
        egress === undefined
          ? undefined
          : wasm.createPluginHost({
              ...hostOptions,
              egress: egress.policy,
              guard: guardWith(egress.guard, o.protectedPorts?.() ?? []),
            });
      const id = `${report.name.replace(/^[^a-z0-9]+/, '') || 'plugin'}-${++counter}`;
      const since = seq;
      const out = { stdout: '', stderr: '' };
      let plugin: Plugin;
      try {
        plugin = await (own ?? host).load(files, {
          grants,
          grantMode: 'narrow',
          fsRootCheck,
          id,
          isolation: 'worker',
          onOutput: (stream, text) => {
            if (out[stream].length < maxOut) out[stream] = (out[stream] + text).slice(0, maxOut);
          },
        });
      } catch (e) {
        await own?.close();
        throw e;
      }
      if (own !== undefined) owned.add(own);
      const view = {
        id,
        name: plugin.name,
        ...(plugin.version === undefined ? {} : { version: plugin.version }),
        source,
        digest: plugin.digest,
        capabilities: [...plugin.capabilities],
        requested,
        exports: [...report.exports],
        ...(plugin.signer === undefined ? {} : { signer: plugin.signer.keyId }),
        ...(egress === undefined ? {} : { egress: egress.view }),
      };
      const entry: Entry = { plugin, own, callable: callableNames(plugin.interface.items), view, out, busy: false };
      loaded.set(id, entry);
      return { plugin: viewOf(entry), decisions: decisionsOf(id, since) };
    },

    async pluginCall(id, exportName, args): Promise<PluginCallView> {
      const e = entryOf(id);
      if (!e.callable.has(exportName))
        throw new TrustError('STUDIO_PLUGIN_EXPORT_UNKNOWN', `plugin "${id}" exports no function "${exportName}"`, {
          hint: `call one of its exports: ${[...e.callable].join(', ') || 'it exports no function'}`,
        });
      if (e.busy)
        throw new TrustError('STUDIO_PLUGIN_BUSY', `plugin "${id}" is still answering a call`, {
          hint: 'wait for the call to finish (it is stopped at its deadline)',
        });
      e.busy = true;
      e.out.stdout = '';
      e.out.stderr = '';
      const since = seq;
      const started = Date.now();
      let outcome: { result: unknown } | { error: { code: string; message: string; hint?: string } };
      try {
        outcome = { result: toJsonResult(await e.plugin.call(exportName, ...args)) };
      } catch (err) {
        if (!(err instanceof TrustError)) throw err;
        outcome = {
          error: { code: err.code, message: err.message, ...(err.hint === undefined ? {} : { hint: err.hint }) },
        };
      } finally {
        e.busy = false;
      }
      return {
        plugin: viewOf(e),
        export: exportName,
        ...outcome,
        output: { stdout: e.out.stdout, stderr: e.out.stderr },
        decisions: decisionsOf(id, since),
        ms: Date.now() - started,
      };
    },

    async pluginUnload(id) {
      const e = entryOf(id);
      loaded.delete(id);
      await e.plugin.dispose();
      if (e.own !== undefined) {
        owned.delete(e.own);
        await e.own.close();
      }
      return { unloaded: id };
    },

    async pluginUpload({ fileName, bytes }): Promise<PluginReport> {
      return uploadStudioPlugin(o.pluginsDir, fileName, bytes, trustedKeys);
    },

    close: async () => {
      await Promise.all([host.close(), ...[...owned].map((h) => h.close())]);
    },
  };
}

/** The policy's guard with `ports` added to its protected ports (a plugin never reaches the control API). */
function guardWith(guard: GuardOptions, ports: readonly number[]): GuardOptions {
  const own = guard.protectedPorts ?? [];
  return ports.length === 0 ? guard : { ...guard, protectedPorts: [...new Set([...own, ...ports])] };
}

function toDecisionView(e: AuditEvent): PluginDecisionView {
  const reason = e.details?.['reason'];
  return {
    time: e.time,
    action: e.action,
    target: e.target,
    decision: e.decision,
    ...(e.rule === undefined ? {} : { rule: e.rule }),
    ...(e.code === undefined ? {} : { code: e.code }),
    ...(typeof reason === 'string' ? { reason: reason.slice(0, 500) } : {}),
  };
}
