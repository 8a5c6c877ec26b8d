import { resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { withAdfSnapshot } from '../adf-snapshot.js';
import { escapeTerminal } from '../terminal-text.js';
import { loadOwnerIdentity } from '../owner-identity.js';

export const command: CommandSpec = {
  name: 'agent inspect',
  summary: 'show an agent: tool matrix, locks, restricted tools, triggers, code flags, review status',
  description:
    'Opens a private copy of an .adf file read-only (nothing is written beside the file), as a foreign file ' +
    '(schema audit and integrity check), and shows what\n' +
    'the agent may do before you run it: the tool matrix (enabled, visible, restricted, locked), the\n' +
    'locked config fields, triggers, what agent code may call, MCP servers, the audit chain, pending\n' +
    'approvals, and the review key (content hash and owner) you would accept.',
  positionals: [{ name: 'file', description: 'the .adf agent file' }],
  options: {},
  examples: [
    { command: 'trust agent inspect helper.adf', explain: 'review an agent file, e.g. one you received' },
    {
      command:
        "trust agent inspect helper.adf --json | jq '.result.tools[] | select(.enabled and (.restricted | not))'",
      explain: 'tools that run without asking',
    },
  ],
  jsonShape:
    '{ "file", "name", "description", "did": string|null, "schemaVersion": number, "autonomous": boolean, ' +
    '"provider": string, ' +
    '"tools": [{ "name", "enabled", "visible", "restricted", "locked" }], "lockedFields": string[], ' +
    '"triggers": [{ "type", "scope", "lambda"? }], "codeExecution": { [flag]: boolean }, "mcpServers": ' +
    'string[], "mcp": [{ "name", "transport", "target", "grants", "network", "restricted", "tools": [{ "name", ' +
    '"risk" }], "lastSeen": { "event", "level", "message", "at" }|null }], ' +
    '"pendingApprovals": [{ "id", "tool" }], "audit": { "ok": boolean, "count"?: number, ' +
    '"brokenAt"?: number }, "timers": [{ "id", "scope", "lambda" }], "lambdas": [{ "path", "authorized" }], ' +
    '"baseUrl": string|null, "review": { "contentHash", "ownerDid": string|null, ' +
    '"status": "accepted"|"not-reviewed" } }',
  async run({ io, out, positionals }) {
    const file = resolve(io.cwd, positionals[0] as string);
    const rt = await import('@trust/agent-runtime');
    const mcpRt = await import('@trust/agent-runtime/mcp');
    const owner = await loadOwnerIdentity(io.env);
    return withAdfSnapshot(file, (copy) => {
      const adf = rt.openAdf(copy, { trust: 'foreign', readonly: true });
      try {
        const config = adf.config();
        const decls = rt.effectiveToolDeclarations(config);
        const tools = [...decls.values()].map((d) => ({
          name: d.name,
          enabled: d.enabled,
          visible: d.visible,
          restricted: d.restricted,
          locked: d.locked,
        }));
        const chain = adf.audit.verify();
        const key = rt.reviewKeyOf(adf);
        const surface = rt.describeAdfReview(adf);
        const reviewed = owner !== undefined && key.ownerDid === owner.did;
        const report = {
          file,
          name: config.name,
          description: config.description,
          did: adf.meta.get('adf_did') ?? null,
          schemaVersion: adf.schemaVersion,
          autonomous: config.autonomous,
          provider: config.model.provider,
          tools,
          lockedFields: [...new Set([...rt.DEFAULT_LOCKED_PATHS, ...config.locked_fields])],
          triggers: config.triggers.map((t) => ({
            type: t.type,
            scope: t.scope,
            ...(t.lambda ? { lambda: t.lambda } : {}),
          })),
          codeExecution: { ...config.code_execution } as Record<string, unknown>,
          mcpServers: config.mcp.servers.map((s) => s.name),
          // What each MCP server may do: grants, network, restriction, tools with risk, last logged health.
          mcp: mcpRt.describeMcpServers(config, adf.logs.list({ limit: 2000 })),
          pendingApprovals: adf.tasks.list({ status: 'pending' }).map((t) => ({ id: t.id, tool: t.tool })),
          audit: chain.ok ? { ok: true, count: chain.count } : { ok: false, brokenAt: chain.index },
          timers: surface.timers.map((t) => ({ id: t.id, scope: t.scope, lambda: t.lambda })),
          lambdas: surface.lambdas,
          baseUrl: surface.model.baseUrl,
          review: {
            contentHash: key.contentHash,
            ownerDid: key.ownerDid,
            status: reviewed ? ('accepted' as const) : ('not-reviewed' as const),
          },
        };
        out.result(report);
        const s = out.style;
        const e = escapeTerminal;
        const yes = (b: boolean | undefined) => (b ? 'yes' : s.dim('no'));
        out.line(`${s.bold(e(config.name))} ${s.dim(e(config.description))}`);
        out.line(
          `  provider ${e(config.model.provider)}, autonomous ${yes(config.autonomous)}, schema v${adf.schemaVersion}`,
        );
        out.line(`  identity ${report.did === null ? s.yellow('none (this file cannot sign)') : e(report.did)}`);
        out.line('');
        out.line(s.bold('Tools            enabled  visible  restricted  locked'));
        // a styled "no" carries 8 characters of escape codes, so its column is wider
        const wide = s.enabled ? 8 : 0;
        for (const t of tools) {
          const flags = [
            yes(t.enabled).padEnd(8 + wide),
            yes(t.visible).padEnd(8 + wide),
            yes(t.restricted).padEnd(11 + wide),
            yes(t.locked),
          ];
          out.line(`  ${e(t.name).padEnd(16)} ${flags.join(' ')}`);
        }
        out.line('');
        out.line(`${s.bold('Locked fields')}   ${report.lockedFields.map((f) => e(f)).join(', ') || 'none'}`);
        const trigger = (t: (typeof report.triggers)[number]): string =>
          e(`${t.type}/${t.scope}${'lambda' in t ? ` → ${t.lambda}` : ''}`);
        out.line(
          `${s.bold('Triggers')}        ${report.triggers.length ? report.triggers.map(trigger).join(', ') : 'none'}`,
        );
        out.line(
          `${s.bold('Agent code may')}  ${
            Object.entries(report.codeExecution)
              .filter(([, v]) => v === true)
              .map(([k]) => k)
              .join(', ') || 'nothing'
          }`,
        );
        out.line(`${s.bold('MCP servers')}     ${report.mcpServers.map((m) => e(m)).join(', ') || 'none'}`);
        for (const m of report.mcp) {
          const seen = m.lastSeen ? `${m.lastSeen.event} ${m.lastSeen.at}: ${m.lastSeen.message}` : 'never run';
          out.line(`  ${e(m.name)} ${m.transport} ${e(m.target)}${m.restricted ? ' (restricted)' : ''}`);
          out.line(`    grants ${e(m.grants.join(', ') || 'none')}; network ${m.network}; last ${e(seen)}`);
          const tools = m.tools.map((t) => `${e(t.name)} ${t.risk}`).join(', ');
          out.line(`    tools ${tools || 'none declared'}`);
        }
        const pending = report.pendingApprovals.map((t) => `${t.id} (${e(t.tool)})`).join(', ');
        out.line(`${s.bold('Pending')}         ${pending || 'no approvals waiting'}`);
        const verdict = chain.ok
          ? s.green(`intact (${chain.count} events)`)
          : s.red(`broken at event ${chain.index}: ${e(chain.reason)}`);
        out.line(`${s.bold('Audit chain')}     ${verdict}`);
        const timers = report.timers.map((t) => `#${t.id} ${t.scope.join('+')}${t.lambda ? ` → ${e(t.lambda)}` : ''}`);
        out.line(`${s.bold('Timers')}          ${timers.join(', ') || 'none'}`);
        const code = report.lambdas.map((l) => `${e(l.path)}${l.authorized ? s.red(' (authorized)') : ''}`);
        out.line(`${s.bold('Code files')}      ${code.join(', ') || 'none'}`);
        out.line(
          `${s.bold('Model at')}        ${report.baseUrl ? s.red(e(report.baseUrl)) : "the provider's public API"}`,
        );
        out.line(
          `${s.bold('Review')}          ${reviewed ? s.green('accepted') : s.yellow('not reviewed')}: ` +
            `content ${key.contentHash.slice(0, 16)}…, ` +
            `owner ${e(key.ownerDid ?? 'none')}`,
        );
        return 0;
      } finally {
        adf.close();
      }
    });
  },
};
