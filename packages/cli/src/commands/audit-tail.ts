import { watch } from 'node:fs';
import type { AuditEvent } from '@trust/core';
import type { CommandSpec } from '../command.js';
import type { Output } from '../output.js';
import { integerOption } from '../args.js';
import { readAuditEvents } from '../audit-source.js';
import { escapeTerminal } from '../terminal-text.js';

/** One event as one terminal line; every field is escaped (targets and details are untrusted). */
export function formatAuditLine(e: AuditEvent, out: Pick<Output, 'style'>): string {
  const s = out.style;
  const decision = e.decision === 'allow' ? s.green('allow') : s.red('deny ');
  const who = `${e.principal.kind}:${e.principal.id}${e.principal.agent ? `@${e.principal.agent}` : ''}`;
  const why = [e.rule ? `rule ${e.rule}` : '', e.code ?? ''].filter(Boolean).join(' ');
  return `${s.dim(escapeTerminal(e.time))}  ${decision}  ${escapeTerminal(who)}  ${escapeTerminal(e.action)}  ${escapeTerminal(e.target)}${why ? `  ${s.dim(escapeTerminal(why))}` : ''}`;
}

export const command: CommandSpec = {
  name: 'audit tail',
  summary: 'print the last events of an audit log (JSONL or .adf)',
  description: 'Prints the last events, one line each: time, decision, principal, action, target, rule and code.\nWith --follow it keeps printing events as they are appended, until Ctrl-C.',
  positionals: [{ name: 'file', description: 'a JSONL audit file or an agent .adf file' }],
  options: {
    lines: { type: 'string', short: 'n', valueName: 'count', description: 'how many of the last events to print (default 20; 0 for all)' },
    follow: { type: 'boolean', short: 'f', description: 'keep printing new events until interrupted' },
  },
  examples: [
    { command: 'trust audit tail audit.jsonl', explain: 'the last 20 decisions' },
    { command: 'trust audit tail audit.jsonl -n 0 --json | jq \'.result.events[] | select(.decision == "deny")\'', explain: 'every denial, for a script' },
    { command: 'trust audit tail -f audit.jsonl', explain: 'watch decisions as they happen' },
  ],
  jsonShape: '{ "file": string, "total": number, "chain": { "ok": boolean, "brokenAt"?: number }, "events": AuditEvent[] }  (with --follow, each new event follows as one JSON line)',
  async run({ io, out, values, positionals }) {
    const path = positionals[0] as string;
    const count = integerOption(values, 'lines', { min: 0, max: 1_000_000 }) ?? 20;
    const { full, events } = await readAuditEvents(io.cwd, path);
    const { verifyChain } = await import('@trust/core');
    const verdict = verifyChain(events);
    const shown = count === 0 ? events : events.slice(-count);
    out.result({ file: full, total: events.length, chain: verdict.ok ? { ok: true } : { ok: false, brokenAt: verdict.index }, events: shown });
    for (const e of shown) out.line(formatAuditLine(e, out));
    if (!verdict.ok) out.warn(`the hash chain breaks at event ${verdict.index} (${verdict.code}); run \`trust audit verify ${escapeTerminal(path)}\``);
    if (values.follow !== true) return 0;
    let seen = events.length;
    out.progress('following; press Ctrl-C to stop');
    await new Promise<void>((done) => {
      const check = async () => {
        try {
          const now = (await readAuditEvents(io.cwd, path)).events;
          for (const e of now.slice(seen)) {
            out.event(e);
            out.line(formatAuditLine(e, out));
          }
          seen = now.length;
        } catch {
          // A half-written line: read again on the next change.
        }
      };
      const watcher = watch(full, () => void check());
      const timer = setInterval(() => void check(), 1000);
      io.signal.addEventListener('abort', () => {
        watcher.close();
        clearInterval(timer);
        done();
      }, { once: true });
    });
    return 0;
  },
};
