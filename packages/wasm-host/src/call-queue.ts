/**
 * One call at a time per plugin: while one is in flight (or queued), later calls queue. With
 * nothing in flight a call runs at once, and a synchronous answer (the worker fast path) settles
 * without a queue turn. `callSync`, when given, answers every call at once (in-thread plugins
 * without network), so no queue is needed. A dead plugin refuses each call with `deadError()`,
 * also a call that was queued before it died.
 */
export function createCallQueue(o: {
  invoke: (name: string, args: unknown[]) => unknown | Promise<unknown>;
  callSync: ((name: string, args: unknown[]) => unknown) | undefined;
  isDead: () => boolean;
  deadError: () => Error;
}): (name: string, args: unknown[]) => Promise<unknown> {
  let queue: Promise<unknown> = Promise.resolve();
  let inFlight = 0;
  const runNow = (name: string, args: unknown[]): unknown | Promise<unknown> =>
    o.isDead() ? Promise.reject(o.deadError()) : o.invoke(name, args);
  return (name, args) => {
    if (o.isDead()) return Promise.reject(o.deadError());
    if (o.callSync) {
      try {
        return Promise.resolve(o.callSync(name, args));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    let r: unknown;
    if (inFlight === 0) {
      try {
        r = runNow(name, args);
      } catch (e) {
        return Promise.reject(e);
      }
      if (!(r instanceof Promise)) return Promise.resolve(r);
    } else {
      r = queue.then(
        () => runNow(name, args),
        () => runNow(name, args),
      );
    }
    inFlight++;
    const p = (r as Promise<unknown>).finally(() => {
      inFlight--;
    });
    queue = p.catch(() => undefined);
    return p;
  };
}
