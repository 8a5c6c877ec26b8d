/**
 * WebAssembly JSPI (JavaScript Promise Integration): a host import may return a promise, and the
 * guest's stack is suspended until it settles while the thread's event loop keeps running. Node 24
 * has it by default; Node 20 and 22 do not. With it, a plugin on the host's own thread can make
 * HTTP requests: its `wasi:http` imports await the egress client directly instead of blocking the
 * thread in a synchronous bridge (which would freeze the loop egress itself runs on).
 */

/** True when this runtime has JSPI (`WebAssembly.Suspending` and `WebAssembly.promising`). */
export function hasJspi(): boolean {
  return typeof WebAssembly.Suspending === 'function' && typeof WebAssembly.promising === 'function';
}

/**
 * The imports that may answer with a promise under JSPI: everything through which a guest's HTTP
 * request reaches the broker (the request start, body writes and reads, the body's end, the
 * response head). The stream methods are shared with files and stdio, which still answer at once;
 * an import that returns a plain value does not suspend.
 */
export const JSPI_ASYNC_IMPORTS: readonly string[] = Object.freeze([
  'wasi:http/outgoing-handler#handle',
  'wasi:http/types#[method]future-incoming-response.get',
  'wasi:http/types#[static]outgoing-body.finish',
  'wasi:io/streams#[method]output-stream.write',
  'wasi:io/streams#[method]output-stream.blocking-write-and-flush',
  'wasi:io/streams#[method]output-stream.write-zeroes',
  'wasi:io/streams#[method]output-stream.blocking-write-zeroes-and-flush',
  'wasi:io/streams#[method]input-stream.read',
  'wasi:io/streams#[method]input-stream.blocking-read',
  'wasi:io/streams#[method]input-stream.skip',
  'wasi:io/streams#[method]input-stream.blocking-skip',
]);

/**
 * The export names jco marks async (every export: any of them may reach an async import, and an
 * export jco does not mark cannot suspend), from the component's interface items: `run` for a
 * world function, `ns:pkg/iface@1.0.0#fn` for a function of an exported interface (listed with and
 * without its version).
 */
export function jspiAsyncExports(items: readonly string[]): string[] {
  const names = new Set<string>();
  for (const item of items) {
    names.add(item);
    names.add(item.replace(/@[^#]*#/, '#'));
  }
  return [...names].sort();
}
