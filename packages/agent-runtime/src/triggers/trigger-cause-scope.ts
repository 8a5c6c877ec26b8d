import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CAUSE, type TriggerCause } from './trigger-guard.js';

/**
 * Carries the cause of the firing in progress through everything it awaits (the lambda's
 * bridge calls, the tools they run, the loop a wake starts), so an event raised deep inside is
 * attributed to the firing that raised it. One per dispatcher: two agents never share it.
 */
export interface TriggerCauseScope {
  /** The cause of the code running now; {@link ROOT_CAUSE} outside any firing. */
  current(): TriggerCause;
  /** Runs `fn` (and all it awaits) under `cause`. */
  run<T>(cause: TriggerCause, fn: () => T): T;
}

/**
 * Creates a cause scope over Node's AsyncLocalStorage.
 *
 * @example
 * const scope = createTriggerCauseScope();
 * await scope.run({ depth: 1, chain: [0] }, async () => scope.current().depth); // 1
 */
export function createTriggerCauseScope(): TriggerCauseScope {
  const store = new AsyncLocalStorage<TriggerCause>();
  return {
    current: () => store.getStore() ?? ROOT_CAUSE,
    run: (cause, fn) => store.run(cause, fn),
  };
}
