import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PluginReport } from '../control/index.js';
import { riskLevel } from './plugin-reports.js';

type Inspection = Awaited<ReturnType<typeof import('@trust/wasm-host')['inspectPackage']>>;

/**
 * The studio's plugin inspector: every package folder and `.tpkg` file under `dir`, inspected
 * by the package's own code (`inspectPackage`, never by the browser): capabilities with their
 * risk notes first, signer and trust status, digest and interface hash, exports, and each import
 * against the grants with what a load would refuse. A package that cannot be read is listed as
 * `invalid` with the reason, never silently dropped.
 *
 * @example
 * const reports = await readStudioPlugins(layout.plugins, trustedKeyTexts);
 */
export async function readStudioPlugins(dir: string, trustedKeyTexts: readonly string[]): Promise<PluginReport[]> {
  const { inspectPackage, parseKeyFile, publicKeyOf } = await import('@trust/wasm-host');
  const trustedKeys = trustedKeyTexts.map((t) => publicKeyOf(parseKeyFile(t)));
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const packages = entries
    .filter((e) => e.isDirectory() || (e.isFile() && e.name.endsWith('.tpkg')))
    .sort((a, b) => a.name.localeCompare(b.name));
  const reports: PluginReport[] = [];
  for (const e of packages) {
    try {
      reports.push(toReport(e.name, await inspectPackage(join(dir, e.name), { trustedKeys })));
    } catch (error) {
      const reason = `cannot be read: ${(error as Error).message}`.slice(0, 300);
      reports.push({ name: e.name, source: e.name, capabilities: [], signature: { status: 'invalid', reason } });
    }
  }
  return reports;
}

/** One inspection as the studio shows it. Exported for tests. */
export function toReport(source: string, r: Inspection): PluginReport {
  const refused = new Map(r.unsatisfiedImports.map((u) => [u.import, u]));
  const s = r.signature;
  return {
    name: r.name,
    version: r.version,
    source,
    capabilities: r.capabilities.map((c) => ({ name: c.capability, risk: riskLevel(c.capability), note: c.risk })),
    signature:
      s.status === 'valid'
        ? { status: 'valid', signer: s.keyId }
        : s.status === 'unsigned'
          ? { status: 'unsigned', reason: 'the package carries no signature' }
          : { status: s.status, reason: s.reason },
    component: { ...r.component },
    ...(r.interface === undefined ? {} : { interface: r.interface }),
    ...(r.interfaceVersion === undefined ? {} : { interfaceVersion: r.interfaceVersion }),
    exports: [...r.exports],
    imports: r.imports.map((name) => {
      const u = refused.get(name);
      if (u === undefined) return { name, granted: true };
      return {
        name,
        granted: false,
        refused: u.reason ?? 'no declared capability provides it',
        ...(u.hint === undefined ? {} : { hint: u.hint }),
      };
    }),
  };
}
