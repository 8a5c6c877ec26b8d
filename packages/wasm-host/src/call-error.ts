import type { TrustError } from '@trust/core';
import { wasmError } from './errors.js';
import type { CallOutcome } from './plugin-runtime.js';

/** The typed error for a failed call of plugin `id` (`exports` names what it offers). */
export function callFailureError(
  id: string,
  o: Extract<CallOutcome, { ok: false }>,
  name: string,
  exports: readonly string[],
): TrustError {
  const f = o.failure;
  if (f.kind === 'exit')
    return wasmError('WASM_EXIT', `plugin ${id} exited with code ${f.exitCode} during ${name}`, {
      hint: 'the guest called wasi:cli/exit; the instance is gone, load it again',
    });
  if (f.kind === 'guest')
    return Object.assign(
      wasmError('WASM_GUEST_ERROR', `plugin ${id}: ${name} returned an error`, {
        hint: "see error.payload for the guest's error value",
      }),
      { payload: f.payload },
    );
  if (f.kind === 'memory')
    return wasmError('WASM_MEMORY_LIMIT', `plugin ${id}: ${f.message}`, {
      hint: 'raise limits.maxMemoryBytes if the plugin legitimately needs more',
    });
  if (f.kind === 'unknown-export')
    return wasmError('WASM_EXPORT_UNKNOWN', `plugin ${id}: ${f.message}`, { hint: `exports: ${exports.join(', ')}` });
  return wasmError('WASM_TRAP', `plugin ${id} trapped in ${name}: ${f.message}`, {
    hint: 'the instance is dropped; load the plugin again',
  });
}
