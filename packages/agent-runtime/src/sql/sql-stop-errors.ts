import { TrustError } from '@trust/core';

/** Why the host stopped a statement: its time cap, or a host write that needed the file's lock. */
export type StopReason = 'timeout' | 'preempt';

const HOW = {
  killed: 'its SQL process was killed',
  interrupted: 'SQLite interrupted it and rolled it back',
  terminated: 'it did not answer an interrupt, so its SQL worker was terminated',
} as const;

/** The error a stopped statement's caller gets; nothing the statement wrote was committed. */
export function deathError(reason: StopReason, timeoutMs: number, how: keyof typeof HOW): TrustError {
  if (reason === 'timeout') {
    return new TrustError(
      'SQL_TIMEOUT',
      `the statement ran longer than ${timeoutMs} ms and was stopped (${HOW[how]}; nothing it wrote was committed)`,
      {
        hint:
          'narrow the query, add LIMIT or an index, or bound the recursion; ' +
          'the owner can raise limits.sql_timeout_ms / limits.sql_execute_timeout_ms',
      },
    );
  }
  return new TrustError(
    'SQL_PREEMPTED',
    "the statement held the agent file's write lock while the host had to write the file, " +
      `so it was stopped (${HOW[how]}; nothing it wrote was committed)`,
    { hint: 'retry it; split long writes into smaller statements so each commits quickly' },
  );
}

export function busyError(waiting: number): TrustError {
  return new TrustError('SQL_BUSY', `${waiting} SQL statements are already waiting for this agent`, {
    hint: 'wait for earlier statements to finish',
  });
}
