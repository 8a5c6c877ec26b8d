import { join } from 'node:path';
import { resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { listOption, stringOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { loadEgressPolicyFile } from '../egress-policy-file.js';
import { readTrustedKeys } from '../plugin-files.js';
import { trustHome } from '../trust-home.js';
import { escapeTerminal } from '../terminal-text.js';
import { formatAuditLine } from './audit-tail.js';
import { checkCapabilityFlag } from '../flag-values.js';
import { convertExportArgs, findExportWit, parseWitParams } from '../export-args.js';

/** A command-line argument for a plugin export: JSON when it parses as JSON, else the string itself. */
export function parsePluginArg(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A value as the terminal shows it (64-bit integers are bigints, which JSON cannot print). */
function showValue(v: unknown): string {
  return typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? 'undefined');
}

export const command: CommandSpec = {
  name: 'run',
  summary: 'run a plugin export under the WASM host with explicit grants',
  description:
    'Loads a plugin (a package directory, a .tpkg archive or a bare component.wasm) into its own worker\n' +
    'with a deny-all WASI, checks its signature, grants only the listed capabilities, calls one export\n' +
    'and prints the result, the guest output and every egress decision. Arguments are checked against\n' +
    'the signature of the export (count and type: add(a: u32, b: u32) takes two whole numbers) before\n' +
    'the call; a mismatch is a usage error (exit 2). Compound types (lists, records) are written as JSON.',
  positionals: [
    { name: 'plugin', description: 'a package directory, a .tpkg archive or a component .wasm' },
    { name: 'export', description: 'the exported function to call, e.g. add or hello' },
    { name: 'args', description: 'arguments for the export', required: false, variadic: true },
  ],
  options: {
    grant: {
      type: 'string',
      multiple: true,
      valueName: 'capability',
      description: "replace the package's capabilities with these (repeatable; e.g. env:LOG_LEVEL, http)",
    },
    policy: {
      type: 'string',
      valueName: 'file',
      description: 'the egress policy file that judges http/tcp/udp from the plugin',
    },
    trusted: {
      type: 'string',
      multiple: true,
      valueName: 'key.pub',
      description: 'a public key whose signatures you accept (repeatable)',
    },
    'allow-unsigned': { type: 'boolean', description: 'load an unsigned package or a bare component' },
  },
  examples: [
    { command: 'trust run hello add 2 3 --trusted signing.pub', explain: 'call add(2, 3) in a signed package' },
    { command: 'trust run hello hello --allow-unsigned', explain: 'try an unsigned package you just created' },
    {
      command:
        'trust run fetcher.tpkg get \'"https://api.github.com/zen"\' ' +
        '--grant http --policy policy.json --trusted vendor.pub',
      explain: 'network only through the egress policy',
    },
  ],
  jsonShape:
    '{ "plugin": string, "export": string, "result": any, "stdout": string, "stderr": string, ' +
    '"capabilities": string[], "signer"?: string, "digest": string, "audit": AuditEvent[] }',
  exitCodes: [
    '126 the plugin was refused: unsigned, a bad signature, an untrusted key, imports its grants do ' +
      'not provide, or a network capability without --policy (the code, WASM_*, says which)',
    '1 the plugin could not be loaded or trapped (a broken component, a timeout, a guest error)',
    "2 also: arguments that do not fit the export's signature (count or type), an export the plugin does not have",
  ],
  async run({ io, out, values, positionals }) {
    const [source, exportName, ...rawArgs] = positionals as [string, string, ...string[]];
    await checkCapabilityFlag('grant', listOption(values, 'grant'));
    const [{ createPluginHost }, { createMemoryAuditSink }] = await Promise.all([
      import('@trust/wasm-host'),
      import('@trust/core'),
    ]);
    const trustedKeys = await readTrustedKeys(io.cwd, listOption(values, 'trusted'));
    const policyPath = stringOption(values, 'policy');
    const egress = policyPath ? await loadEgressPolicyFile(io.cwd, policyPath, io.env) : undefined;
    const audit = createMemoryAuditSink();
    const host = createPluginHost({
      trustedKeys,
      requireSignature: values['allow-unsigned'] !== true,
      cacheDir: join(trustHome(io.env), 'cache', 'wasm'),
      audit,
      env: io.env,
      ...(egress ? { egress: egress.policy, guard: egress.guard } : {}),
    });
    try {
      out.progress(
        `loading ${escapeTerminal(source)} (the first load of a component transpiles it; later loads are cached)`,
      );
      const grants = listOption(values, 'grant');
      const plugin = await host.load(resolve(io.cwd, source), grants.length > 0 ? { grants } : {});
      // Checked against the export's WIT signature before the call: a wrong count or a word that
      // is not a value of its type is a usage error, not a result computed from coerced input.
      const wit = findExportWit(plugin.interface.items, exportName);
      const params = wit === undefined ? undefined : parseWitParams(wit);
      const args = params ? convertExportArgs(exportName, params, rawArgs) : rawArgs.map(parsePluginArg);
      const result = await plugin.call(exportName, ...args).catch((e: unknown) => {
        // Naming an export the plugin does not have is a mistake on the command line (exit 2), not a failure.
        const err = e as { code?: unknown; message?: string; hint?: string };
        if (err.code !== 'WASM_EXPORT_UNKNOWN') throw e;
        throw new CliError('WASM_EXPORT_UNKNOWN', err.message ?? `no export ${exportName}`, {
          ...(err.hint ? { hint: err.hint } : {}),
          exitCode: 2,
          cause: e,
        });
      });
      const output = plugin.output();
      const events = audit.events();
      out.result({
        plugin: plugin.name,
        export: exportName,
        result: result === undefined ? null : typeof result === 'bigint' ? result.toString() : result,
        stdout: output.stdout,
        stderr: output.stderr,
        capabilities: [...plugin.capabilities],
        ...(plugin.signer ? { signer: plugin.signer.keyId } : {}),
        digest: plugin.digest,
        audit: events,
      });
      const s = out.style;
      const shownArgs = args.map((a) => escapeTerminal(showValue(a))).join(', ');
      out.line(
        `${s.bold(escapeTerminal(plugin.name))}.${escapeTerminal(exportName)}(${shownArgs}) ` +
          `→ ${escapeTerminal(showValue(result))}`,
      );
      const caps = plugin.capabilities.length
        ? plugin.capabilities.map((c) => escapeTerminal(c)).join(', ')
        : 'none (deny-all)';
      out.line(s.dim(`  capabilities: ${caps}; signer: ${plugin.signer ? plugin.signer.keyId : 'unsigned'}`));
      if (output.stdout) out.line(`${s.dim('guest stdout:')}\n${escapeTerminal(output.stdout, { multiline: true })}`);
      if (output.stderr) out.line(`${s.dim('guest stderr:')}\n${escapeTerminal(output.stderr, { multiline: true })}`);
      for (const e of events.filter((x) => x.action.startsWith('egress')))
        out.line(`  ${s.dim('egress')} ${formatAuditLine(e, out)}`);
      return 0;
    } finally {
      await host.close();
    }
  },
};
