// The studio's sandbox runs: validate a start request, start a run, follow its output and egress
// decisions, kill it. The host (the CLI) owns the sandbox; this file only shapes the requests and
// answers, so agent-runtime never depends on the OS sandbox.
import { z } from 'zod';
import { controlError } from './control-error.js';
import type { Route, RouteContext } from './control-routes.js';
import { parseBody } from './route-schemas.js';

/** Most argv words of a start request. */
export const MAX_SANDBOX_ARGV_WORDS = 256;
/** Largest argv word, in characters (the whole body is capped by the server's body limit too). */
export const MAX_SANDBOX_ARGV_WORD = 8192;
/** Longest a poll for run events waits for something new, in ms. */
export const MAX_SANDBOX_POLL_WAIT_MS = 10_000;

/**
 * Body of `POST /sandbox/validate` and `POST /sandbox/runs`. The policies are JSON objects the host
 * validates with the sandbox's and the egress engine's own schemas; argv words are checked for NUL
 * bytes by the sandbox's spawn boundary, not here.
 */
/** Largest standard input text a studio run takes (the CLI pipes a stream; the studio sends text). */
export const MAX_SANDBOX_STDIN_CHARS = 64 * 1024;

export const SandboxStartBody = z
  .object({
    argv: z
      .array(z.string().max(MAX_SANDBOX_ARGV_WORD))
      .min(1)
      .max(MAX_SANDBOX_ARGV_WORDS)
      .describe('the program and its arguments, no shell, e.g. ["echo", "hello"]'),
    cwd: z.string().min(1).max(4096).optional().describe('working directory inside the sandbox (must be granted)'),
    policy: z
      .record(z.string(), z.unknown())
      .describe('the sandbox policy (v: 1), e.g. {"v":1,"capabilities":["stdout","stderr"]}'),
    egress: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe('the egress policy file (v: 1) judging http/tcp; omitted or null: none'),
    stdin: z
      .string()
      .max(MAX_SANDBOX_STDIN_CHARS)
      .optional()
      .describe('text given to the run as its standard input (needs the "stdin" capability), e.g. "hello\\n"'),
  })
  .strict();

/** A start request as the host receives it (sizes checked, contents not yet validated). */
export type SandboxStartInput = z.infer<typeof SandboxStartBody>;

/** One problem of a start request, where it is (e.g. `policy.capabilities.0`, `argv.1`), and the fix. */
export interface SandboxProblem {
  readonly code: string;
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
}

/** How a run ended. `killed`: the owner killed it. */
export interface SandboxRunExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly killed: boolean;
  readonly durationMs: number;
}

/** A run started from the studio, as the studio shows it. */
export interface SandboxLiveRun {
  readonly id: string;
  readonly argv: readonly string[];
  readonly startedAt: string;
  readonly state: 'running' | 'exited';
  readonly policy: unknown;
  readonly egress: unknown;
  /** The limits in force: the policy's, lowered to the host's caps. */
  readonly limits: { readonly timeMs: number; readonly outputBytes: number };
  readonly counts: { readonly allowed: number; readonly denied: number };
  readonly exit?: SandboxRunExit;
}

/** One event of a run, numbered from 1. Output events carry text as the process wrote it (untrusted). */
export type SandboxRunEvent =
  | { readonly seq: number; readonly kind: 'output'; readonly stream: 'stdout' | 'stderr'; readonly text: string }
  | {
      readonly seq: number;
      readonly kind: 'egress';
      readonly time: string;
      readonly action: string;
      readonly target: string;
      readonly decision: 'allow' | 'deny';
      readonly rule?: string;
      readonly code?: string;
    }
  | { readonly seq: number; readonly kind: 'exit'; readonly exit: SandboxRunExit };

/** A page of events after a cursor; `next` is the cursor for the following poll. */
export interface SandboxEventPage {
  readonly events: readonly SandboxRunEvent[];
  readonly next: number;
  readonly state: 'running' | 'exited';
}

/** A validation answer: the request is runnable, or every problem at once. */
export type SandboxCheck = { readonly ok: true } | { readonly ok: false; readonly problems: readonly SandboxProblem[] };

/** What the host provides to start and follow sandbox runs from the studio. */
export interface SandboxControl {
  /** Validates a request with the sandbox's own schemas and boundary, starting nothing. */
  validate(input: SandboxStartInput): Promise<SandboxCheck>;
  /** Starts a run; problems of the request come back in place, not thrown. */
  start(
    input: SandboxStartInput,
  ): Promise<
    | { readonly ok: true; readonly run: SandboxLiveRun }
    | { readonly ok: false; readonly problems: readonly SandboxProblem[] }
  >;
  /** The runs started here that are kept (newest first). */
  list(): SandboxLiveRun[];
  /** One run; throws CONTROL_NOT_FOUND for an unknown id. */
  get(id: string): SandboxLiveRun;
  /** Events after `after`; waits up to `waitMs` for one while the run is running. */
  events(id: string, after: number, waitMs: number): Promise<SandboxEventPage>;
  /** Ends the run's whole process tree; CONTROL_CONFLICT when it has already ended. */
  kill(id: string): Promise<SandboxLiveRun>;
}

const ID = '(?<id>[A-Za-z0-9][A-Za-z0-9._-]{0,63})';

/**
 * The sandbox routes, every one behind the server's guard like any other route. Without a host
 * `SandboxControl` each answers 501 NOT_IMPLEMENTED with the fix.
 *
 * @example
 * createRoutes(agents, { sandboxControl: runner, cspReports }); // adds POST /sandbox/runs, …
 */
export function sandboxRoutes(control: SandboxControl | undefined): readonly Route[] {
  const need = (): SandboxControl => {
    if (control === undefined)
      throw controlError(
        'NOT_IMPLEMENTED',
        'this server cannot start sandbox runs',
        'start the studio with `trust studio`, which runs them under the OS sandbox',
      );
    return control;
  };
  const r = (method: Route['method'], path: string, handler: (ctx: RouteContext) => Promise<unknown>): Route => ({
    method,
    pattern: new RegExp(`^${path}$`),
    handler,
  });
  const id = (ctx: RouteContext): string => ctx.params['id']!;
  return [
    r('POST', '/sandbox/validate', async (ctx) => need().validate(parseBody(SandboxStartBody, ctx.body))),
    r('POST', '/sandbox/runs', async (ctx) => need().start(parseBody(SandboxStartBody, ctx.body))),
    r('GET', '/sandbox/runs', async () => ({ provided: control !== undefined, runs: control?.list() ?? [] })),
    r('GET', `/sandbox/runs/${ID}`, async (ctx) => ({ run: need().get(id(ctx)) })),
    r('GET', `/sandbox/runs/${ID}/events/(?<after>[0-9]{1,9})`, async (ctx) =>
      need().events(id(ctx), Number(ctx.params['after']), MAX_SANDBOX_POLL_WAIT_MS),
    ),
    r('POST', `/sandbox/runs/${ID}/kill`, async (ctx) => ({ run: await need().kill(id(ctx)) })),
  ];
}
