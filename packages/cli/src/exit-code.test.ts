import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeFor } from './exit-code.js';

describe('exitCodeFor', () => {
  it.each([
    [{ code: 'CLI_USAGE_UNKNOWN_OPTION' }, 2],
    [{ code: 'APPROVAL_REJECTED' }, 130],
    [{ code: 'EGRESS_DENIED' }, 126],
    [{ code: 'EGRESS_PRIVATE_ADDRESS', decision: { allow: false } }, 126],
    [{ code: 'NOT_IMPLEMENTED' }, 1],
    [{ code: 'WASM_KEY_UNTRUSTED' }, 126],
    [{ code: 'WASM_SIGNATURE_INVALID' }, 126],
    [{ code: 'WASM_UNSIGNED' }, 126],
    [{ code: 'WASM_IMPORT_UNSATISFIED' }, 126],
    [{ code: 'WASM_EGRESS_POLICY_MISSING' }, 126],
    [{ code: 'SANDBOX_DEGRADED_REFUSED' }, 126],
    [{ code: 'WASM_TRAP' }, 1],
    [{ code: 'WASM_KEY_INVALID' }, 1],
    [{ code: 'SANDBOX_UNAVAILABLE' }, 1],
    [{ code: 'MODEL_API_KEY_MISSING', exitCode: 2 }, 2],
    [{ code: 'X', exitCode: 130 }, 130],
    [{ code: 'X', exitCode: 77 }, 1],
    [new Error('plain'), 1],
    ['a string', 1],
  ])('%j → %i', (error, expected) => {
    expect(exitCodeFor(error)).toBe(expected);
  });

  it('documents exactly the five codes', () => {
    expect(EXIT_CODES).toEqual({ ok: 0, failure: 1, usage: 2, denied: 126, rejected: 130 });
  });
});
