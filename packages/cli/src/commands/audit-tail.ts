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
  return (
    `${s.dim(escapeTerminal(e.time))}  ${decision}  ${escapeTerminal(who)}  ` +
    `${escapeTerminal(e.action)}  ${escapeTerminal(e.target)}${why ? `  ${s.dim(escapeTerminal(why))}` : ''}`
  );
}

/**
 * The line number of a JSONL file's torn tail (an incomplete last line), or `undefined` when it
 * has none, is an .adf file, or has other damage too (then reading reports that as usual).
 */
async function tornTailLine(cwd: string, path: string): Promise<number | undefined> {
  try {
    await readAuditEvents(cwd, path);
    return undefined;
  } catch (error) {
    const e = error as { code?: string; problems?: readonly { code?: string; path?: string }[] };
    if (e.code !== 'AUDIT_FILE_CORRUPT' || e.problems?.length !== 1 || e.problems[0]?.code !== 'AUDIT_TORN_TAIL')
      return undefined;
    const line = Number(/line (\d+)/.exec(e.problems[0].path ?? '')?.[1]);
    return Number.isInteger(line) ? line : undefined;
  }
}

export const command: CommandSpec = {
  name: 'audit tail',
  summary: 'print the last events of an audit log (JSONL or .adf)',
  description:
    'Prints the last events, one line each: time, decision, principal, action, target, rule and code.\n' +
    'With --follow it keeps printing events as they are appended, until Ctrl-C. A torn last line (a write\n' +
    'cut short by a crash) is not an event: the intact events before it are printed, with a warning.',
  positionals: [{ name: 'file', description: 'a JSONL audit file or an agent .adf file' }],
  options: {
    lines: {
      type: 'string',
      short: 'n',
      valueName: 'count',
      description: 'how many of the last events to print (default 20; 0 for all)',
    },
    follow: { type: 'boolean', short: 'f', description: 'keep printing new events until interrupted' },
  },
  examples: [
    { command: 'trust audit tail audit.jsonl', explain: 'the last 20 decisions' },
    {
      command: 'trust audit tail audit.jsonl -n 0 --json | jq \'.result.events[] | select(.decision == "deny")\'',
      explain: 'every denial, for a script',
    },
    { command: 'trust audit tail -f audit.jsonl', explain: 'watch decisions as they happen' },
  ],
  jsonShape:
    '{ "file": string, "total": number, "chain": { "ok": boolean, "brokenAt"?: number }, "tornTail"?: { ' +
    '"line": number }, "events": AuditEvent[] }  (with --follow, each new event follows as one JSON line)',
  async run({ io, out, values, positionals }) {
    const path = positionals[0] as string;
    const count = integerOption(values, 'lines', { min: 0, max: 1_000_000, example: 50 }) ?? 20;
    const torn = await tornTailLine(io.cwd, path);
    const { full, events } = await readAuditEvents(io.cwd, path, { allowTornTail: torn !== undefined });
    const { verifyChain } = await import('@trust/core');
    const verdict = verifyChain(events);
    const shown = count === 0 ? events : events.slice(-count);
    out.result({
      file: full,
      total: events.length,
      chain: verdict.ok ? { ok: true } : { ok: false, brokenAt: verdict.index },
      ...(torn !== undefined ? { tornTail: { line: torn } } : {}),
      events: shown,
    });
    for (const e of shown) out.line(formatAuditLine(e, out));
    if (torn !== undefined) {
      out.warn(
        `the last line (line ${torn}) is torn: a write was interrupted by a crash or a ` +
          `full disk; it was never an acknowledged event and is not shown. \`trust audit ` +
          `verify ${escapeTerminal(path)} --repair\` removes it`,
      );
    }
    if (!verdict.ok)
      out.warn(
        `the hash chain breaks at event ${verdict.index} (${verdict.code}); ` +
          `run \`trust audit verify ${escapeTerminal(path)}\``,
      );
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
      io.signal.addEventListener(
        'abort',
        () => {
          watcher.close();
          clearInterval(timer);
          done();
        },
        { once: true },
      );
    });
    return 0;
  },
};
