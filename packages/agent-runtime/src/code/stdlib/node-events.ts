/** Guest source: `events`: EventEmitter (Node's API: on/once/off, prepend*, error semantics) and `once`. */
export const NODE_EVENTS_SOURCE = String.raw`(function (lib) {
  'use strict';
  const listenersOf = new WeakMap();
  const table = (em) => {
    let t = listenersOf.get(em);
    if (!t) { t = new Map(); listenersOf.set(em, t); }
    return t;
  };
  const checkFn = (fn) => {
    if (typeof fn !== 'function') throw new TypeError('The "listener" argument must be of type function');
  };
  class EventEmitter {
    static defaultMaxListeners = 10;
    #max = EventEmitter.defaultMaxListeners;
    #add(name, fn, once, prepend) {
      checkFn(fn);
      const t = table(this);
      if (t.has('newListener') && name !== 'newListener') this.emit('newListener', name, fn);
      const list = t.get(name) || [];
      const entry = { fn, once };
      t.set(name, prepend ? [entry, ...list] : [...list, entry]);
      return this;
    }
    on(name, fn) { return this.#add(name, fn, false, false); }
    addListener(name, fn) { return this.#add(name, fn, false, false); }
    prependListener(name, fn) { return this.#add(name, fn, false, true); }
    once(name, fn) { return this.#add(name, fn, true, false); }
    prependOnceListener(name, fn) { return this.#add(name, fn, true, true); }
    off(name, fn) { return this.removeListener(name, fn); }
    removeListener(name, fn) {
      const t = table(this);
      const list = t.get(name);
      if (!list) return this;
      const i = list.map((e) => e.fn).lastIndexOf(fn);
      if (i >= 0) {
        const rest = list.filter((_e, j) => j !== i);
        if (rest.length) t.set(name, rest); else t.delete(name);
        if (t.has('removeListener')) this.emit('removeListener', name, fn);
      }
      return this;
    }
    removeAllListeners(name) {
      const t = table(this);
      if (name === undefined) t.clear(); else t.delete(name);
      return this;
    }
    emit(name, ...args) {
      const list = table(this).get(name);
      if (!list || list.length === 0) {
        if (name === 'error') {
          const err = args[0];
          if (err instanceof Error) throw err;
          const e = new Error('Unhandled error. (' + String(err) + ')');
          e.code = 'ERR_UNHANDLED_ERROR';
          e.context = err;
          throw e;
        }
        return false;
      }
      for (const e of list) {
        if (e.once) this.removeListener(name, e.fn);
        e.fn.apply(this, args);
      }
      return true;
    }
    listeners(name) { return (table(this).get(name) || []).map((e) => e.fn); }
    rawListeners(name) { return this.listeners(name); }
    listenerCount(name) { return (table(this).get(name) || []).length; }
    eventNames() { return [...table(this).keys()]; }
    setMaxListeners(n) { this.#max = n; return this; }
    getMaxListeners() { return this.#max; }
  }
  const once = (em, name) =>
    new Promise((resolve, reject) => {
      const onError = (e) => { em.removeListener(name, onEvent); reject(e); };
      const onEvent = (...args) => { if (name !== 'error') em.removeListener('error', onError); resolve(args); };
      em.once(name, onEvent);
      if (name !== 'error') em.once('error', onError);
    });
  EventEmitter.EventEmitter = EventEmitter;
  EventEmitter.once = once;
  EventEmitter.errorMonitor = Symbol('events.errorMonitor');
  return EventEmitter;
})`;
