import { TrustError } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { capText, notFound, withProtection } from './tool-support.js';

const path = {
  type: 'string',
  description: 'Virtual file path, e.g. "notes/todo.md".',
  minLength: 1,
  maxLength: 1024,
} as const;

/** fs_read: one virtual file as text, capped at `limits.max_file_read_tokens`. */
export const fsReadTool: ToolDefinition<{ path: string }> = {
  name: 'fs_read',
  description: 'Read a virtual file of this agent as text.',
  inputSchema: { type: 'object', properties: { path }, required: ['path'], additionalProperties: false },
  run(args, ctx) {
    const rec = ctx.adf.files.read(args.path);
    if (!rec) throw notFound(`file "${args.path}"`);
    const { text, truncated } = capText(rec.content.toString('utf8'), ctx.config.limits.max_file_read_tokens);
    return {
      path: rec.path,
      content: text,
      size: rec.size,
      truncated,
      protection: rec.protection,
      authorized: rec.authorized,
    };
  },
};

interface FsWriteArgs {
  path: string;
  mode: 'write' | 'append' | 'edit';
  content?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
}

/** fs_write: write, append, or edit (exact replace) a virtual file; honours read_only and the size cap. */
export const fsWriteTool: ToolDefinition<FsWriteArgs> = {
  name: 'fs_write',
  description:
    'Write a virtual file. mode "write" replaces, "append" adds to the end, "edit" replaces old_string with ' +
    'new_string (once, or every time with replace_all).',
  inputSchema: {
    type: 'object',
    properties: {
      path,
      mode: { type: 'string', enum: ['write', 'append', 'edit'], description: 'How to write.' },
      content: { type: 'string', description: 'Text for write/append.' },
      old_string: { type: 'string', description: 'edit: exact text to replace.' },
      new_string: { type: 'string', description: 'edit: replacement text.' },
      replace_all: { type: 'boolean', description: 'edit: replace every occurrence.' },
    },
    required: ['path', 'mode'],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const current = ctx.adf.files.read(args.path)?.content.toString('utf8');
    let next: string;
    if (args.mode === 'edit') {
      if (current === undefined) throw notFound(`file "${args.path}"`);
      if (!args.old_string) throw new TrustError('FS_EDIT_INVALID', 'edit needs a non-empty old_string');
      const count = current.split(args.old_string).length - 1;
      if (count === 0) throw new TrustError('FS_EDIT_NO_MATCH', `old_string was not found in "${args.path}"`);
      if (count > 1 && !args.replace_all)
        throw new TrustError(
          'FS_EDIT_AMBIGUOUS',
          `old_string occurs ${count} times in "${args.path}"; pass replace_all or a longer old_string`,
        );
      next = args.replace_all
        ? current.split(args.old_string).join(args.new_string ?? '')
        : current.replace(args.old_string, () => args.new_string ?? '');
    } else {
      if (typeof args.content !== 'string') throw new TrustError('FS_WRITE_INVALID', `${args.mode} needs content`);
      next = args.mode === 'append' ? (current ?? '') + args.content : args.content;
    }
    const max = ctx.config.limits.max_file_write_bytes;
    if (Buffer.byteLength(next) > max)
      throw new TrustError(
        'FS_WRITE_TOO_LARGE',
        `"${args.path}" would be ${Buffer.byteLength(next)} bytes; the limit is ${max}`,
        { hint: 'raise limits.max_file_write_bytes or split the file' },
      );
    const rec = await withProtection(ctx, `file:${args.path}`, (bypass) =>
      ctx.adf.files.write(args.path, next, { bypassProtection: bypass || ctx.authorized }),
    );
    return { path: rec.path, size: rec.size };
  },
};

/** fs_list: virtual files under a prefix (metadata only). */
export const fsListTool: ToolDefinition<{ prefix?: string }> = {
  name: 'fs_list',
  description: 'List virtual files, optionally under a path prefix.',
  inputSchema: {
    type: 'object',
    properties: { prefix: { type: 'string', description: 'Path prefix; omit for all files.', maxLength: 1024 } },
    additionalProperties: false,
  },
  run(args, ctx) {
    const files = ctx.adf.files.list(args.prefix).slice(0, 10_000);
    return {
      files: files.map((f) => ({
        path: f.path,
        size: f.size,
        protection: f.protection,
        authorized: f.authorized,
        updatedAt: f.updatedAt,
      })),
    };
  },
};

/** fs_delete: deletes a virtual file; read_only and no_delete need a one-time owner override. */
export const fsDeleteTool: ToolDefinition<{ path: string }> = {
  name: 'fs_delete',
  description: 'Delete a virtual file.',
  inputSchema: { type: 'object', properties: { path }, required: ['path'], additionalProperties: false },
  async run(args, ctx) {
    const deleted = await withProtection(ctx, `file:${args.path}`, (bypass) =>
      ctx.adf.files.delete(args.path, { bypassProtection: bypass || ctx.authorized }),
    );
    if (!deleted) throw notFound(`file "${args.path}"`);
    return { deleted: args.path };
  },
};
