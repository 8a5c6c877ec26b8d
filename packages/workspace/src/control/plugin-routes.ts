import { z } from 'zod';
import { parseJsonWithLimits } from '@trust/core';
import type { PluginReport } from './agent-registry.js';
import { controlError } from './control-error.js';
import type { Route, RouteContext } from './control-routes.js';
import { parseBody } from './route-schemas.js';

/** Deepest nesting of a call's JSON arguments (checked on the text before it is parsed). */
export const PLUGIN_ARGS_MAX_DEPTH = 16;
/** Largest JSON argument text of one call, in bytes. */
export const PLUGIN_ARGS_MAX_BYTES = 64 * 1024;
/** Largest `.tpkg` the studio uploads, in bytes (before base64). */
export const PLUGIN_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;
// base64 grows 4/3; the JSON around it is small.
const UPLOAD_BODY_BYTES = Math.ceil(PLUGIN_UPLOAD_MAX_BYTES / 3) * 4 + 4096;

/** A plugin the host has loaded for the studio. */
export interface LoadedPluginView {
  /** The id its audit events carry (principal `plugin:<id>`). */
  readonly id: string;
  readonly name: string;
  readonly version?: string;
  /** The workspace entry it was loaded from. */
  readonly source: string;
  readonly digest: string;
  /** What it was granted: the manifest's capabilities narrowed to the owner's choice. */
  readonly capabilities: readonly string[];
  /** What its manifest asks for. */
  readonly requested: readonly string[];
  readonly exports: readonly string[];
  /** The signer's key id, when signed by a trusted key. */
  readonly signer?: string;
  /** Set once a trap, timeout or crash killed it: every later call is refused. */
  readonly dead?: { readonly code: string; readonly message: string };
  /** The egress policy its network grants run under, as it was when it loaded (absent: no network grant). */
  readonly egress?: PluginEgressView;
}

/** The owner's egress policy a network-granted plugin was loaded with: its file and rules (no secret values). */
export interface PluginEgressView {
  /** The workspace file it was read from. */
  readonly file: string;
  readonly name?: string;
  /** One row per rule a denial can name: `http.allow`, `http.deny`, `http.inject.0`, `tcp.allow`, `guard`. */
  readonly rules: readonly { readonly path: string; readonly value: string }[];
}

/** One decision recorded about a plugin (a grant, a load, an egress request). */
export interface PluginDecisionView {
  readonly time: string;
  readonly action: string;
  readonly target: string;
  readonly decision: 'allow' | 'deny';
  readonly rule?: string;
  readonly code?: string;
  readonly reason?: string;
}

/** What one call returned: its result or the guest's error, its captured output and its decisions. */
export interface PluginCallView {
  readonly plugin: LoadedPluginView;
  readonly export: string;
  /** The export's return value (absent when the call failed). */
  readonly result?: unknown;
  /** Why the call failed: a trap, a timeout, a guest error (the plugin may now be dead). */
  readonly error?: { readonly code: string; readonly message: string; readonly hint?: string };
  /** Output the guest wrote during this call (only streams it was granted), each capped. */
  readonly output: { readonly stdout: string; readonly stderr: string };
  /** Egress and other decisions recorded for this plugin during the call. */
  readonly decisions: readonly PluginDecisionView[];
  readonly ms: number;
}

/**
 * Host hooks behind the studio's plugin actions. The host (the CLI) loads plugins with its own
 * plugin host; this package never loads WASM. Each hook throws a coded TrustError to refuse.
 */
export interface PluginActionHooks {
  /** Plugins loaded now. */
  readonly pluginsLoaded?: () => readonly LoadedPluginView[] | Promise<readonly LoadedPluginView[]>;
  /** Loads workspace entry `source` with `grants`, a subset of its manifest's capabilities (never wider). */
  readonly pluginLoad?: (input: {
    readonly source: string;
    readonly grants: readonly string[];
  }) => Promise<{ plugin: LoadedPluginView; decisions: readonly PluginDecisionView[] }>;
  /** Calls `exportName` with arguments already bounded and parsed. */
  readonly pluginCall?: (id: string, exportName: string, args: readonly unknown[]) => Promise<PluginCallView>;
  /** Disposes a loaded plugin. */
  readonly pluginUnload?: (id: string) => Promise<{ unloaded: string }>;
  /** Validates and unpacks an uploaded `.tpkg` into the workspace, with the package's own code. */
  readonly pluginUpload?: (input: { readonly fileName: string; readonly bytes: Uint8Array }) => Promise<PluginReport>;
}

/** Body of `POST /api/v1/plugins/load`. */
export const PluginLoadBody = z
  .object({
    source: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
      .describe('a workspace plugin entry as GET /plugins lists it, e.g. "hello" or "hello.tpkg"'),
    grants: z
      .array(z.string().min(1).max(4200))
      .max(64)
      .describe('the capabilities to grant, a subset of the manifest\'s, e.g. ["env:GREETING"]; [] grants nothing'),
  })
  .strict();

/** Body of `POST /api/v1/plugins/loaded/:id/call`. */
export const PluginCallBody = z
  .object({
    export: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:/#@-]{0,199}$/)
      .describe('the export to call, e.g. "add" or "iface.fn"'),
    args: z.string().max(PLUGIN_ARGS_MAX_BYTES).describe('the arguments as a JSON array text, e.g. "[2, 3]"'),
  })
  .strict();

/** Body of `POST /api/v1/plugins/upload`. */
export const PluginUploadBody = z
  .object({
    fileName: z
      .string()
      .regex(/^[^/\\\0]{1,200}$/)
      .describe('the uploaded file name, shown only, e.g. "hello.tpkg"'),
    data: z
      .string()
      .max(UPLOAD_BODY_BYTES)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/)
      .describe('the .tpkg bytes, base64'),
  })
  .strict();

const LOADED = '(?<loaded>[A-Za-z0-9][A-Za-z0-9._-]{0,127})';

/** Parses a call's argument text: bounded size and nesting (core's checkJsonText), then a JSON array. */
export function parsePluginArgs(text: string): unknown[] {
  const value = parseJsonWithLimits(text.trim() === '' ? '[]' : text, {
    maxDepth: PLUGIN_ARGS_MAX_DEPTH,
    maxBytes: PLUGIN_ARGS_MAX_BYTES,
  });
  if (!Array.isArray(value))
    throw controlError(
      'CONTROL_BAD_REQUEST',
      'the call arguments are not a JSON array',
      'write the arguments as an array, e.g. [2, 3] or ["hello"]; [] for none',
    );
  return value;
}

function decodeUpload(data: string): Uint8Array {
  const bytes = new Uint8Array(Buffer.from(data, 'base64'));
  if (bytes.length > PLUGIN_UPLOAD_MAX_BYTES)
    throw controlError(
      'CONTROL_BODY_TOO_LARGE',
      `the package is ${bytes.length} bytes, more than the ${PLUGIN_UPLOAD_MAX_BYTES} the studio accepts`,
      'copy larger packages into the workspace plugins folder instead',
    );
  return bytes;
}

/**
 * The studio's plugin actions: list loaded, load with narrowed grants, call, unload, upload.
 * Each route is behind the control server's guard like every other; without its hook it answers
 * NOT_IMPLEMENTED.
 */
export function pluginRoutes(host: PluginActionHooks): Route[] {
  const need = <K extends keyof PluginActionHooks>(key: K): NonNullable<PluginActionHooks[K]> => {
    const fn = host[key];
    if (fn === undefined)
      throw controlError(
        'NOT_IMPLEMENTED',
        `this host does not provide "${key}"`,
        'start the studio with `trust studio`',
      );
    return fn as NonNullable<PluginActionHooks[K]>;
  };
  const r = (method: Route['method'], path: string, handler: Route['handler'], maxBodyBytes?: number): Route => ({
    method,
    pattern: new RegExp(`^${path}$`),
    handler,
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  const id = (ctx: RouteContext) => ctx.params['loaded']!;
  return [
    r('GET', '/plugins/loaded', async () => ({
      provided: host.pluginsLoaded !== undefined,
      loaded: host.pluginsLoaded ? await host.pluginsLoaded() : [],
    })),
    r('POST', '/plugins/load', async (ctx) => need('pluginLoad')(parseBody(PluginLoadBody, ctx.body))),
    r('POST', `/plugins/loaded/${LOADED}/call`, async (ctx) => {
      const body = parseBody(PluginCallBody, ctx.body);
      return need('pluginCall')(id(ctx), body.export, parsePluginArgs(body.args));
    }),
    r('POST', `/plugins/loaded/${LOADED}/unload`, async (ctx) => need('pluginUnload')(id(ctx))),
    r(
      'POST',
      '/plugins/upload',
      async (ctx) => {
        const body = parseBody(PluginUploadBody, ctx.body);
        return { plugin: await need('pluginUpload')({ fileName: body.fileName, bytes: decodeUpload(body.data) }) };
      },
      UPLOAD_BODY_BYTES,
    ),
  ];
}
