;; The sample plugin that `trust package init` and the studio demo workspace start from: a core
;; module for the `sample` world (sample-plugin.wit) with no imports at all, so it runs with an
;; empty capability list. scripts/build-sample-plugin.mjs assembles it into a component and writes
;; src/sample-plugin-component.ts.
(module
  (memory (export "memory") 1)
  ;; "hello from a sandboxed plugin" (29 bytes) at 64; hello's return area (ptr, len) at 16.
  (data (i32.const 64) "hello from a sandboxed plugin")
  (data (i32.const 16) "\40\00\00\00\1d\00\00\00")
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (i32.const 1024))
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1)))
  (func (export "hello") (result i32) (i32.const 16))
)
