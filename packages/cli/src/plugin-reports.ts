import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PluginReport } from '@trust/agent-runtime';

/** The risk level the studio shows for a capability. */
export function riskLevel(capability: string): 'low' | 'medium' | 'high' {
  if (/^(network|sockets|http|tcp|udp)$/.test(capability) || capability.startsWith('fs:rw:')) return 'high';
  if (capability.startsWith('fs:ro:') || capability.startsWith('env:') || capability === 'stdin') return 'medium';
  return 'low';
}

/**
 * Inspects every package directory under `dir` for the studio's plugin view. A package that
 * cannot be read is listed with an invalid signature and the reason, never silently dropped.
 */
export async function readPluginReports(dir: string, trustedKeyTexts: readonly string[]): Promise<PluginReport[]> {
  const { inspectPackage, parseKeyFile, publicKeyOf } = await import('@trust/wasm-host');
  const trustedKeys = trustedKeyTexts.map((t) => publicKeyOf(parseKeyFile(t)));
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const reports: PluginReport[] = [];
  for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    try {
      const r = await inspectPackage(join(dir, e.name), { trustedKeys });
      const unsatisfied = new Set(r.unsatisfiedImports.map((u) => u.import));
      reports.push({
        name: r.name,
        version: r.version,
        capabilities: r.capabilities.map((c) => ({ name: c.capability, risk: riskLevel(c.capability), note: c.risk })),
        signature:
          r.signature.status === 'valid'
            ? { status: 'valid', signer: r.signature.keyId }
            : r.signature.status === 'unsigned'
              ? { status: 'unsigned' }
              : { status: 'invalid' },
        imports: r.imports.map((name) => ({ name, granted: !unsatisfied.has(name) })),
      });
    } catch (error) {
      reports.push({ name: e.name, capabilities: [], signature: { status: 'invalid', signer: `unreadable: ${(error as Error).message}`.slice(0, 200) } });
    }
  }
  return reports;
}
