/**
 * Synchronous clean-ups to run if the process exits while a sandbox still has something on disk
 * (kept placeholders, its own work directory). One 'exit' listener for all sandboxes (each adds
 * and removes its own callbacks), so that many open sandboxes do not pile up listeners; it holds
 * nothing besides these callbacks. A process killed by a signal runs none of them.
 */
const callbacks = new Set<() => void>();
const runAll = (): void => {
  for (const fn of callbacks) {
    try {
      fn();
    } catch {
      /* the process is exiting: one failed clean-up must not stop the others */
    }
  }
};

/** Adds (`on`) or removes `fn` from what runs at process exit. */
export function onProcessExit(fn: () => void, on: boolean): void {
  const before = callbacks.size;
  if (on) callbacks.add(fn);
  else callbacks.delete(fn);
  if (before === 0 && callbacks.size > 0) process.on('exit', runAll);
  if (before > 0 && callbacks.size === 0) process.off('exit', runAll);
}
