// The minimal WebAssembly JS API surface this package uses. The project compiles against ES2022
// without DOM lib, which carries no WebAssembly namespace.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
  class RuntimeError extends Error {}
  type Imports = Record<string, Record<string, unknown>>;
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
  /** JSPI (Node >= 24): absent on older runtimes, so typed as possibly undefined. */
  const Suspending: (new (fn: (...args: never[]) => unknown) => unknown) | undefined;
  const promising: ((fn: (...args: never[]) => unknown) => (...args: unknown[]) => Promise<unknown>) | undefined;
}
