/** A plugin the studio host has loaded (GET /plugins/loaded). Every string comes from the package: text only. */
export interface LoadedPlugin {
  id: string;
  name: string;
  version?: string;
  source: string;
  digest: string;
  /** Granted now: the manifest's capabilities narrowed to the owner's choice. */
  capabilities: string[];
  /** What the manifest asks for. */
  requested: string[];
  exports: string[];
  signer?: string;
  dead?: { code: string; message: string };
  /** The owner's egress policy its network grants run under, as loaded (absent: no network grant). */
  egress?: PluginEgress;
}

/** A network-granted plugin's egress policy: the workspace file and its rules (secret header values hidden). */
export interface PluginEgress {
  file: string;
  name?: string;
  rules: { path: string; value: string }[];
}

/**
 * The policy rule a plugin's egress decision names: `plugins:http.deny` gives `http.deny`, a guard
 * block gives `guard`; `deny-all` (no allow rule matched) points at the allow list of its protocol.
 */
export function pluginRuleSection(action: string, rule: string | undefined): string | undefined {
  if (rule === undefined) return undefined;
  const m = /(?:^|:)((?:http|tcp|udp)\.(?:allow|deny|methods|inject(?:\[\d+\])?))(?::|$)/.exec(rule);
  if (m) return m[1]!.replace(/\[(\d+)\]/, '.$1');
  if (/^(block-|address-guard|guard)/.test(rule)) return 'guard';
  const proto = /^egress\.(http|tcp|udp)$/.exec(action)?.[1];
  return rule === 'deny-all' && proto !== undefined ? `${proto}.allow` : undefined;
}

/** One decision recorded about a plugin: a grant, a load, an egress request. */
export interface PluginDecision {
  time: string;
  action: string;
  target: string;
  decision: 'allow' | 'deny';
  rule?: string;
  code?: string;
  reason?: string;
}

/** The answer of one call: its result or error, its captured output and its decisions. */
export interface PluginCallResult {
  plugin: LoadedPlugin;
  export: string;
  result?: unknown;
  error?: { code: string; message: string; hint?: string };
  output: { stdout: string; stderr: string };
  decisions: PluginDecision[];
  ms: number;
}

/**
 * The callable names among a component's export lines: `add: func(a: u32) -> u32` gives `add`;
 * an exported interface (`pkg:ns/iface`) gives nothing here (type its `iface.fn` by hand).
 */
export function callableExports(exports: readonly string[]): string[] {
  return exports.flatMap((e) => {
    const m = /^([a-z][a-z0-9-]*): func\b/.exec(e);
    return m ? [m[1]!] : [];
  });
}

/** Bytes to base64 in slices (a whole-file spread would overflow the call stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, Math.min(i + 0x8000, bytes.length)));
  return btoa(binary);
}
