// The JSON shapes of the control API's sandbox routes (see the agent-runtime README). Output text,
// targets, argv and problem messages are untrusted: rendered as text only.

export interface SandboxProblem {
  code: string;
  path: string;
  message: string;
  hint?: string;
}
export interface SandboxRunExit {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  truncated: boolean;
  killed: boolean;
  durationMs: number;
}
export interface SandboxLiveRun {
  id: string;
  argv: string[];
  startedAt: string;
  state: 'running' | 'exited';
  policy: unknown;
  egress: unknown;
  limits: { timeMs: number; outputBytes: number };
  counts: { allowed: number; denied: number };
  exit?: SandboxRunExit;
}
export type SandboxRunEvent =
  | { seq: number; kind: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | {
      seq: number;
      kind: 'egress';
      time: string;
      action: string;
      target: string;
      decision: 'allow' | 'deny';
      rule?: string;
      code?: string;
    }
  | { seq: number; kind: 'exit'; exit: SandboxRunExit };
export interface SandboxEventPage {
  events: SandboxRunEvent[];
  next: number;
  state: 'running' | 'exited';
}
export type SandboxCheck = { ok: true } | { ok: false; problems: SandboxProblem[] };
export type SandboxStarted = { ok: true; run: SandboxLiveRun } | { ok: false; problems: SandboxProblem[] };
