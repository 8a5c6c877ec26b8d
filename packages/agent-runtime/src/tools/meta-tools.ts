import type { ToolDefinition } from '../gate/tool-definition.js';
import { notFound, withProtection } from './tool-support.js';

const key = { type: 'string', description: 'Meta key.', minLength: 1, maxLength: 256 } as const;

/** sys_get_meta: one key, or every key with its protection. */
export const sysGetMetaTool: ToolDefinition<{ key?: string }> = {
  name: 'sys_get_meta',
  description: 'Read agent metadata (adf_meta): one key, or all keys when key is omitted.',
  inputSchema: { type: 'object', properties: { key }, additionalProperties: false },
  run(args, ctx) {
    if (args.key === undefined) return { entries: ctx.adf.meta.list() };
    const value = ctx.adf.meta.get(args.key);
    if (value === undefined) throw notFound(`meta key "${args.key}"`);
    return { key: args.key, value };
  },
};

/** sys_set_meta: honours readonly/increment protection and runtime-owned keys. */
export const sysSetMetaTool: ToolDefinition<{ key: string; value: string }> = {
  name: 'sys_set_meta',
  description:
    'Set an agent metadata value. Protected keys (readonly, increment-only, runtime keys) refuse or need ' +
    'owner approval.',
  inputSchema: {
    type: 'object',
    properties: { key, value: { type: 'string', description: 'New value.', maxLength: 65_536 } },
    required: ['key', 'value'],
    additionalProperties: false,
  },
  async run(args, ctx) {
    // Runtime-owned keys never get an override: the store refuses them whatever the caller.
    await withProtection(ctx, `meta:${args.key}`, (bypass) =>
      ctx.adf.meta.set(args.key, args.value, { bypassProtection: bypass || ctx.authorized }),
    );
    return { key: args.key };
  },
};

/** sys_delete_meta: deletes an unprotected key. */
export const sysDeleteMetaTool: ToolDefinition<{ key: string }> = {
  name: 'sys_delete_meta',
  description: 'Delete an agent metadata key.',
  inputSchema: { type: 'object', properties: { key }, required: ['key'], additionalProperties: false },
  async run(args, ctx) {
    const deleted = await withProtection(ctx, `meta:${args.key}`, (bypass) =>
      ctx.adf.meta.delete(args.key, { bypassProtection: bypass || ctx.authorized }),
    );
    if (!deleted) throw notFound(`meta key "${args.key}"`);
    return { deleted: args.key };
  },
};
