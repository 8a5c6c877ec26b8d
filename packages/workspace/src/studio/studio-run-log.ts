// The live record of one sandbox run started from the studio: its output, egress decisions and
// exit as numbered events, bounded, with waiters for the studio's polls. No I/O, no sandbox.
import type { ControlServerOptions } from '../control/index.js';

type SandboxControl = NonNullable<ControlServerOptions['sandboxControl']>;
/** One event of a run, as the control API sends it. */
export type RunEvent = Awaited<ReturnType<SandboxControl['events']>>['events'][number];
/** A page of events after a cursor. */
export type RunEventPage = Awaited<ReturnType<SandboxControl['events']>>;
/** How a run ended. */
export type RunExit = Extract<RunEvent, { kind: 'exit' }>['exit'];
type EgressFields = Omit<Extract<RunEvent, { kind: 'egress' }>, 'seq' | 'kind'>;
type Unnumbered = RunEvent extends infer T ? (T extends unknown ? Omit<T, 'seq'> : never) : never;

/** Bounds of one run's log. */
export interface RunLogLimits {
  /** Events kept (output chunks, egress decisions, the exit). Past it output is counted, not kept. */
  readonly maxEvents: number;
  /** Egress decisions kept as events; more are counted only. */
  readonly maxEgress: number;
  /** Polls waiting at once; a poll over it is answered at once. */
  readonly maxWaiters: number;
}

export const DEFAULT_RUN_LOG_LIMITS: RunLogLimits = Object.freeze({ maxEvents: 4000, maxEgress: 1000, maxWaiters: 8 });

/** A run's log. */
export interface RunLog {
  output(stream: 'stdout' | 'stderr', text: string): void;
  egress(fields: EgressFields): void;
  exit(exit: RunExit): void;
  readonly state: () => 'running' | 'exited';
  readonly counts: () => { allowed: number; denied: number; droppedOutputBytes: number; droppedEgress: number };
  /** Events after `after` now; never waits. */
  page(after: number): RunEventPage;
  /** Events after `after`, waiting up to `waitMs` for one while the run is running. */
  wait(after: number, waitMs: number): Promise<RunEventPage>;
}

/**
 * Creates the log of one run. Consecutive output of one stream is appended to the last event as
 * long as no poll has been answered with it, so a chatty process makes few events; an event once
 * sent never changes.
 *
 * @example
 * const log = createRunLog();
 * log.output('stdout', 'hi\n');
 * log.page(0).events; // [{ seq: 1, kind: 'output', stream: 'stdout', text: 'hi\n' }]
 */
export function createRunLog(limits: RunLogLimits = DEFAULT_RUN_LOG_LIMITS): RunLog {
  const events: RunEvent[] = [];
  let sent = 0;
  let ended = false;
  let allowed = 0;
  let denied = 0;
  let droppedOutputBytes = 0;
  let droppedEgress = 0;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  const push = (e: Unnumbered): void => {
    events.push({ ...e, seq: events.length + 1 } as RunEvent);
    wake();
  };
  const page = (after: number): RunEventPage => {
    const from = Math.max(0, Math.min(after, events.length));
    const out = events.slice(from);
    sent = Math.max(sent, events.length);
    return { events: out, next: events.length, state: ended ? 'exited' : 'running' };
  };
  return {
    output(stream, text) {
      if (ended || text === '') return;
      const last = events.at(-1);
      if (last?.kind === 'output' && last.stream === stream && last.seq > sent) {
        events[events.length - 1] = { ...last, text: last.text + text };
        wake();
        return;
      }
      // One event is kept back for the exit.
      if (events.length >= limits.maxEvents - 1) {
        droppedOutputBytes += Buffer.byteLength(text, 'utf8');
        return;
      }
      push({ kind: 'output', stream, text });
    },
    egress(fields) {
      if (fields.decision === 'allow') allowed += 1;
      else denied += 1;
      if (ended || allowed + denied > limits.maxEgress || events.length >= limits.maxEvents - 1) {
        droppedEgress += 1;
        return;
      }
      push({ kind: 'egress', ...fields });
    },
    exit(exit) {
      if (ended) return;
      ended = true;
      push({ kind: 'exit', exit });
    },
    state: () => (ended ? 'exited' : 'running'),
    counts: () => ({ allowed, denied, droppedOutputBytes, droppedEgress }),
    page,
    wait(after, waitMs) {
      if (ended || events.length > after || waiters.size >= limits.maxWaiters || waitMs <= 0)
        return Promise.resolve(page(after));
      return new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve(page(after));
        };
        const timer = setTimeout(done, waitMs);
        timer.unref();
        waiters.add(done);
      });
    },
  };
}
