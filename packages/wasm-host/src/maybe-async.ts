/**
 * A value that is there now or later. The HTTP imports run the same code in two modes: in a worker
 * the broker answers synchronously (the sync bridge), so every step completes at once and the
 * guest's call returns a plain value; in-thread under JSPI the broker answers with a promise, the
 * import returns that promise and the guest is suspended until it settles.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Runs `next` on `value` now when it is there, or when it settles. */
export function andThen<A, B>(value: MaybePromise<A>, next: (a: A) => MaybePromise<B>): MaybePromise<B> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Starts a step whose answer nobody waits for; a late failure is dropped instead of going unhandled. */
export function detach(value: MaybePromise<unknown>): void {
  if (value instanceof Promise) value.catch(() => undefined);
}
