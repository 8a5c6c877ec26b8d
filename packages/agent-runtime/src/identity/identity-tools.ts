import type { KeyObject } from 'node:crypto';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { createCodeIdentityAccess, type SealTo } from './identity-store.js';
import { checkOptions } from '../options/strict-options.js';
import { identityToolsDepsSchema } from '../options/tool-factory-options.js';

/**
 * The `adf.get_identity` / `adf.set_identity` code methods as gate tools. The gate applies the
 * `code_execution` flags and `restricted_methods`; these enforce key-material and code_access rules.
 *
 * @example
 * for (const t of createIdentityTools({ privateKey: runtime.privateKey, sealTo })) registry.register(t);
 */
export function createIdentityTools(runtime: {
  privateKey: KeyObject;
  sealTo: SealTo;
}): [
  ToolDefinition<{ purpose: string }, string | null>,
  ToolDefinition<{ purpose: string; value: string }, { ok: true }>,
] {
  checkOptions('createIdentityTools', identityToolsDepsSchema, runtime);
  const purpose = { type: 'string', maxLength: 200 };
  return [
    {
      name: 'get_identity',
      description: 'Read an identity secret that has code access.',
      inputSchema: { type: 'object', properties: { purpose }, required: ['purpose'], additionalProperties: false },
      run: (a, ctx) => createCodeIdentityAccess(ctx.adf, runtime).get(a.purpose) ?? null,
    },
    {
      name: 'set_identity',
      description: 'Store an identity secret readable from code.',
      inputSchema: {
        type: 'object',
        properties: { purpose, value: { type: 'string', maxLength: 100_000 } },
        required: ['purpose', 'value'],
        additionalProperties: false,
      },
      run: (a, ctx) => {
        createCodeIdentityAccess(ctx.adf, runtime).set(a.purpose, a.value);
        return { ok: true as const };
      },
    },
  ];
}
