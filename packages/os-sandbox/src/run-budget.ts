import { DEFAULT_OUTPUT_BYTES, DEFAULT_TIME_MS } from './policy.js';

/** The wall-clock and output budget of one run. `Infinity`: none (a service run). */
export interface RunBudget {
  readonly timeoutMs: number;
  readonly maxOutput: number;
}

/**
 * The budget of one run. An ordinary run gets the policy's `limits.timeMs`/`limits.outputBytes`
 * (default 60 s and 1 MiB), which a spawn's `timeoutMs`/`maxOutputBytes` can only lower. A
 * `service` run (a long-lived server that bounds each message itself, such as an MCP server) has
 * no default budget: only what the policy or the spawn sets explicitly applies, so it is not
 * killed after a minute nor silenced after 1 MiB of output over its whole life. Memory, process,
 * open-file and file-size limits apply to both alike.
 *
 * @example
 * runBudget({}, {}, true); // { timeoutMs: Infinity, maxOutput: Infinity }
 */
export function runBudget(
  limits: { readonly timeMs?: number | undefined; readonly outputBytes?: number | undefined },
  request: { readonly timeoutMs?: number | undefined; readonly maxOutputBytes?: number | undefined },
  service: boolean,
): RunBudget {
  const time = limits.timeMs ?? (service ? Infinity : DEFAULT_TIME_MS);
  const output = limits.outputBytes ?? (service ? Infinity : DEFAULT_OUTPUT_BYTES);
  return {
    timeoutMs: Math.min(request.timeoutMs ?? Infinity, time),
    maxOutput: Math.min(request.maxOutputBytes ?? Infinity, output),
  };
}
