import { resolve } from 'node:path';
import type { AdfReviewSurface } from '@trust/agent-runtime';
import type { CommandSpec } from '../command.js';
import type { Output } from '../output.js';
import { listOption, stringOption } from '../args.js';
import { withAdfSnapshot } from '../adf-snapshot.js';
import { lastAcceptedReview, recordAcceptedReview } from '../adf-reviews-file.js';
import { loadOrCreateOwnerIdentity, loadOwnerIdentity } from '../owner-identity.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'agent review',
  summary: 'review what an agent file can do before it may run; --accept makes it yours',
  description:
    'Shows everything in an .adf file that can act or send data out: enabled tools and their flags,\n' +
    'triggers, timers, code files and their authorized flags, middleware, MCP servers and their\n' +
    'commands, the model provider and base_url, messaging, and what changed since the review you\n' +
    'last accepted. It reads a private copy (with every side file SQLite would replay), never the\n' +
    'file itself. A file is foreign, and `trust agent chat` refuses it, until it carries your\n' +
    'signature over its current content; --accept signs it. On accept, code files the file itself\n' +
    'marked authorized lose that flag unless you tick them with --authorize, and a model base_url\n' +
    'needs --confirm-base-url (your API key would be sent there).',
  positionals: [{ name: 'file', description: 'the .adf agent file' }],
  options: {
    accept: { type: 'boolean', description: 'accept what is shown: record the review and sign the file as yours' },
    authorize: {
      type: 'string',
      multiple: true,
      valueName: 'path',
      description: 'with --accept: keep (or make) this code file authorized; repeatable',
    },
    'confirm-base-url': {
      type: 'boolean',
      description: "with --accept: confirm the model's base_url (prompts and your API key go there)",
    },
    'expect-hash': {
      type: 'string',
      valueName: 'hex',
      description: 'with --accept: the content hash you reviewed earlier; a file changed since is refused',
    },
  },
  examples: [
    { command: 'trust agent review shared.adf', explain: 'see what a file you received can do' },
    {
      command: 'trust agent review shared.adf --accept --authorize mw/inbox.ts',
      explain: 'accept it, keeping one code file authorized',
    },
    {
      command: "trust agent review shared.adf --json | jq '.result.changes'",
      explain: 'what changed since your last accepted review',
    },
  ],
  jsonShape:
    '{ "file", "status": "accepted"|"not-reviewed", "ownerDid": string|null, "surface": { "contentHash", ' +
    '"ownerDid", "agentDid", "name", "autonomous", "tools", "triggers", "timers", "lambdas": [{ "path", ' +
    '"authorized" }], "middleware", "mcpServers", "model": { "provider", "modelId", "baseUrl", "apiKeyEnv" }, ' +
    '"messaging", "codeExecution" }, "changes": [{ "section", "before", "after" }], "accepted"?: { ' +
    '"contentHash", "deauthorized": string[], "authorized": string[] } }',
  async run({ io, out, values, positionals }) {
    const file = resolve(io.cwd, positionals[0] as string);
    const rt = await import('@trust/agent-runtime');
    const surface = await withAdfSnapshot(file, (copy) => {
      const adf = rt.openAdf(copy, { trust: 'foreign', readonly: true });
      try {
        return rt.describeAdfReview(adf);
      } finally {
        adf.close();
      }
    });
    const previous = await lastAcceptedReview(io.env, file, surface.agentDid);
    const changes = rt.diffAdfReviews(previous?.surface, surface);
    let owner = await loadOwnerIdentity(io.env);
    let accepted: { contentHash: string; deauthorized: string[]; authorized: string[] } | undefined;
    if (values.accept === true) {
      owner = await loadOrCreateOwnerIdentity(io.env);
      const adf = rt.openAdf(file, { trust: 'foreign' });
      try {
        const r = rt.acceptAdfReview(adf, {
          owner,
          expectHash: stringOption(values, 'expect-hash') ?? surface.contentHash,
          authorize: listOption(values, 'authorize'),
          confirmBaseUrl: values['confirm-base-url'] === true,
        });
        accepted = { contentHash: r.contentHash, deauthorized: r.deauthorized, authorized: r.authorized };
        const after = rt.describeAdfReview(adf);
        await recordAcceptedReview(io.env, {
          file,
          agentDid: after.agentDid,
          acceptedAt: new Date().toISOString(),
          surface: after,
        });
      } finally {
        adf.close();
      }
    }
    const status = accepted || (owner && surface.ownerDid === owner.did) ? 'accepted' : 'not-reviewed';
    out.result({ file, status, ownerDid: owner?.did ?? null, surface, changes, ...(accepted ? { accepted } : {}) });
    printSurface(out, surface, changes, status);
    if (accepted) {
      const dropped = accepted.deauthorized.map((p) => escapeTerminal(p)).join(', ');
      out.line(
        `${out.style.green('accepted')}: signed as yours (content ${accepted.contentHash.slice(0, 16)}…)` +
          (dropped ? `; no longer authorized: ${dropped}` : ''),
      );
    } else if (status === 'not-reviewed')
      out.line(
        `next: trust agent review ${escapeTerminal(positionals[0] as string)} --accept (after reading the above)`,
      );
    return 0;
  },
};

function printSurface(
  out: Output,
  s: AdfReviewSurface,
  changes: ReadonlyArray<{ section: string }>,
  status: string,
): void {
  const e = (t: string) => escapeTerminal(t);
  const st = out.style;
  // Items are escaped where they are built, so styling added around them survives.
  const list = (items: readonly string[]) => (items.length ? items.join(', ') : st.dim('none'));
  out.line(`${st.bold(e(s.name))}  ${status === 'accepted' ? st.green('accepted') : st.yellow('not reviewed')}`);
  out.line(`  content ${s.contentHash.slice(0, 16)}…, signed by ${e(s.ownerDid ?? 'nobody valid')}`);
  out.line(`  autonomous ${s.autonomous ? st.red('yes') : 'no'}`);
  const arrow = (lambda: string | null) => (lambda ? ` → ${e(lambda)}` : '');
  const tools = s.tools.map(
    (t) => `${e(t.name)}${t.restricted ? '' : st.yellow(' (runs without asking)')}${t.locked ? ' locked' : ''}`,
  );
  out.line(`${st.bold('Enabled tools')}  ${list(tools)}`);
  const triggers = s.triggers.map((t) => `${e(t.type)}/${e(t.scope)}${arrow(t.lambda)}`);
  out.line(`${st.bold('Triggers')}       ${list(triggers)}`);
  const timers = s.timers.map((t) => `#${t.id} ${e(t.scope.join('+'))}${arrow(t.lambda)}`);
  out.line(`${st.bold('Timers')}         ${list(timers)}`);
  const code = s.lambdas.map((l) => `${e(l.path)}${l.authorized ? st.red(' AUTHORIZED by the file') : ''}`);
  out.line(`${st.bold('Code files')}     ${list(code)}`);
  const mw = [...s.middleware.inbox, ...s.middleware.outbox, ...s.middleware.fetch].map(e);
  out.line(`${st.bold('Middleware')}     ${list(mw)}`);
  const mcp = s.mcpServers.map(
    (m) => `${e(m.name)}: ${e(m.command ? [m.command, ...m.args].join(' ') : (m.url ?? '?'))}`,
  );
  out.line(`${st.bold('MCP servers')}    ${list(mcp)}`);
  out.line(
    `${st.bold('Model')}          ${e(s.model.provider)}${s.model.modelId ? ` ${e(s.model.modelId)}` : ''}` +
      (s.model.baseUrl ? st.red(` at ${e(s.model.baseUrl)} (needs --confirm-base-url)`) : ''),
  );
  const m = s.messaging;
  out.line(
    `${st.bold('Messaging')}      receive ${m.receive ? 'yes' : 'no'}, ${e(m.mode)}, visible ${e(m.visibility)}, ` +
      `allow ${list(m.allowList.map(e))}`,
  );
  out.line(`${st.bold('Changed since')}  ${list(changes.map((c) => e(c.section)))}`);
}
