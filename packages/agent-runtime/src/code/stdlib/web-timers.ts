/**
 * Guest source: setTimeout, setInterval, clearTimeout, clearInterval, setImmediate, clearImmediate.
 * Each wait is one host timer of this execution: a timer never fires after the run has ended (its
 * wait is cancelled with the run) and its time counts against the run's deadline. An exception
 * thrown by a callback ends the run with that error, as an uncaught exception ends a Node process.
 */
export const WEB_TIMERS_SOURCE = String.raw`(function (lib) {
  'use strict';
  const live = new Map();
  let next = 1;
  class Timeout {
    #id;
    constructor(id) { this.#id = id; }
    ref() { return this; }
    unref() { return this; }
    hasRef() { return true; }
    refresh() { const t = live.get(this.#id); if (t) { t.gen++; arm(this.#id, t); } return this; }
    [Symbol.toPrimitive]() { return this.#id; }
  }
  const arm = (id, t) => {
    const gen = t.gen;
    lib.sleep(t.ms).then(() => {
      if (live.get(id) !== t || t.gen !== gen) return;
      if (!t.repeat) live.delete(id);
      try {
        t.fn(...t.args);
      } catch (e) {
        live.clear();
        lib.fail(e);
        return;
      }
      if (t.repeat && live.get(id) === t) arm(id, t);
    });
  };
  const add = (fn, ms, args, repeat) => {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
    const delay = Number(ms);
    const t = { fn, args, repeat, gen: 0, ms: Number.isFinite(delay) && delay >= 1 ? Math.floor(delay) : repeat ?
      1 : 0 };
    const id = next++;
    live.set(id, t);
    arm(id, t);
    return new Timeout(id);
  };
  const clear = (h) => {
    if (h === undefined || h === null) return;
    live.delete(typeof h === 'object' ? Number(h[Symbol.toPrimitive]()) : Number(h));
  };
  const setTimeout = (fn, ms, ...args) => add(fn, ms, args, false);
  const setInterval = (fn, ms, ...args) => add(fn, ms, args, true);
  const setImmediate = (fn, ...args) => add(fn, 0, args, false);
  return { setTimeout, setInterval, setImmediate, clearTimeout: clear, clearInterval: clear, clearImmediate: clear };
})`;
