import type { CommandSpec } from '../command.js';
import { listOption } from '../args.js';
import { readPackage, readTrustedKeys } from '../plugin-files.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'package inspect',
  summary: 'show a package: capabilities first, signature, imports vs grants',
  description:
    'Reads a package without running it and shows, in this order: what it may do (each capability with\n' +
    'its risk), who signed it, the component digest, and the imports the component really has, with\n' +
    'those its capabilities would not satisfy flagged.',
  positionals: [{ name: 'package', description: 'a package directory or .tpkg archive' }],
  options: {
    trusted: {
      type: 'string',
      multiple: true,
      valueName: 'key.pub',
      description: 'a public key you trust (repeatable); without one a signature shows as untrusted',
    },
  },
  examples: [
    { command: 'trust package inspect hello', explain: 'review a package before you run it' },
    {
      command: 'trust package inspect hello-0.1.0.tpkg --trusted signing.pub',
      explain: 'including whether its signature is from a key you trust',
    },
    {
      command: "trust package inspect hello --json | jq '.result.capabilities'",
      explain: 'the capabilities, for a script',
    },
  ],
  jsonShape:
    '{ "package": string, "capabilities": [{ "capability", "risk" }], "name", "version", ' +
    '"interface"?, "interfaceVersion"?, "signature": { "status": ' +
    '"valid"|"unsigned"|"invalid"|"untrusted-key", "keyId"?, "reason"? }, "component": { "path", ' +
    '"digest", "size", "interfaceHash" }, "imports": string[], "exports": string[], ' +
    '"unsatisfiedImports": [...] }',
  async run({ io, out, values, positionals }) {
    const { inspectPackage } = await import('@trust/wasm-host');
    const pkg = await readPackage(io.cwd, positionals[0] as string);
    const trusted = await readTrustedKeys(io.cwd, listOption(values, 'trusted'));
    const report = await inspectPackage(pkg.files, { trustedKeys: trusted });
    out.result({ package: pkg.path, ...report });
    const s = out.style;
    const e = escapeTerminal;
    const version = report.interfaceVersion !== undefined ? ` v${report.interfaceVersion}` : '';
    const implementsText = report.interface ? s.dim(`  implements ${e(report.interface)}${version}`) : '';
    out.line(`${s.bold(e(report.name))} ${e(report.version)}${implementsText}`);
    out.line('');
    out.line(s.bold('Capabilities (what it may do)'));
    if (report.capabilities.length === 0)
      out.line(`  ${s.green('none')}: deny-all, it can only compute on its arguments`);
    for (const c of report.capabilities) out.line(`  ${s.yellow(e(c.capability).padEnd(24))} ${e(c.risk)}`);
    if (report.filesystem.length > 0) {
      out.line('');
      out.line(s.bold('Filesystem (effective rights; the most specific entry wins)'));
      for (const f of report.filesystem) {
        const access = f.access === 'rw' ? s.yellow('read-write') : f.access === 'ro' ? 'read-only' : s.green('hidden');
        const within = f.within ? s.dim(` inside ${e(f.within)}`) : '';
        const host =
          f.onHost === 'missing'
            ? s.yellow(' (missing on this host: skipped at load)')
            : f.onHost === 'symlink' || (f.onHost === 'file' && f.access !== 'none')
              ? s.red(` (a ${f.onHost} on this host: the load refuses it)`)
              : '';
        out.line(`  ${e(f.path)}  ${access}${within}${host}`);
      }
    }
    out.line('');
    const sig = report.signature;
    const sigText =
      sig.status === 'valid'
        ? s.green(`valid, signed by key ${e(sig.keyId)}`)
        : sig.status === 'unsigned'
          ? s.yellow('unsigned')
          : s.red(`${sig.status}: ${e(sig.reason)}`);
    out.line(`${s.bold('Signature')}  ${sigText}`);
    out.line(
      `${s.bold('Component')}  ${e(report.component.path)} ` +
        `(${report.component.size} bytes) sha256 ${report.component.digest}`,
    );
    out.line(`${s.bold('Imports')}    ${report.imports.length === 0 ? 'none' : ''}`);
    for (const i of report.imports) out.line(`  ${e(i)}`);
    out.line(`${s.bold('Exports')}`);
    for (const x of report.exports) out.line(`  ${e(x)}`);
    if (report.unsatisfiedImports.length > 0) {
      out.line(s.red('Imports the capabilities do not satisfy (loading will fail):'));
      for (const u of report.unsatisfiedImports)
        out.line(
          `  ${s.red('✗')} ${e(u.import)}${u.reason ? `: ${e(u.reason)}` : ''}${u.hint ? ` (${e(u.hint)})` : ''}`,
        );
    }
    return 0;
  },
};
