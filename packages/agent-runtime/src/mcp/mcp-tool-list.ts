import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { TrustError } from '@trust/core';
import { z } from 'zod';

/** Bounds on one server's `tools/list` (all pages together). */
export interface McpToolListLimits {
  /** Tools at most (default 256). */
  readonly maxTools?: number;
  /** Bytes of the whole list as JSON (default 2 MiB). */
  readonly maxListBytes?: number;
  /** Bytes of one tool's description (default 8 KiB). */
  readonly maxDescriptionBytes?: number;
}

/** One tool as trust keeps it: its name, description and input schema; nothing else of the server's is kept. */
export interface McpToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

const MAX_PAGES = 32;
// A loose envelope: tools stay unparsed here; trust checks each one itself, bounded, below.
const pageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).loose();

/**
 * A validator for the SDK client that compiles and runs no server schema: trust reads only the
 * text content of a result, so a server's `outputSchema` (a ReDoS regex, a schema storm) never
 * reaches Ajv on the host's thread.
 *
 * @example
 * new Client({ name: 'x', version: '1' }, { jsonSchemaValidator: createNonEvaluatingValidator() });
 */
export function createNonEvaluatingValidator(): jsonSchemaValidator {
  const accept = (input: unknown) => ({ valid: true as const, data: input, errorMessage: undefined });
  return { getValidator: () => accept } as unknown as jsonSchemaValidator;
}

/**
 * Lists a server's tools with trust's own bounded reading: the pages are requested raw (so the
 * SDK caches no output validator), and the count, the total bytes and each description are
 * capped, with `MCP_TOOLS_LIST_TOO_LARGE` for a list over a cap. A tool without a string name is
 * skipped and reported in `refused`.
 *
 * @example
 * const { tools, refused } = await listMcpTools(client, {}, { timeout: 60_000 });
 */
export async function listMcpTools(
  client: Pick<Client, 'request'>,
  limits: McpToolListLimits = {},
  request: { timeout?: number; signal?: AbortSignal } = {},
): Promise<{ tools: McpToolInfo[]; refused: Array<{ tool: string; reason: string }> }> {
  const maxTools = limits.maxTools ?? 256;
  const maxBytes = limits.maxListBytes ?? 2 * 1024 * 1024;
  const maxDescription = limits.maxDescriptionBytes ?? 8 * 1024;
  const tools: McpToolInfo[] = [];
  const refused: Array<{ tool: string; reason: string }> = [];
  let bytes = 0;
  let cursor: string | undefined;
  const tooLarge = (what: string) =>
    new TrustError('MCP_TOOLS_LIST_TOO_LARGE', `the server's tools/list is refused: ${what}`, {
      hint: 'the server must offer fewer or smaller tools, or the owner raises the tools/list limits for it',
    });
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor !== undefined ? { cursor } : {} },
      pageSchema as never,
      request,
    );
    const { tools: raw, nextCursor } = result as unknown as z.infer<typeof pageSchema>;
    if (tools.length + raw.length > maxTools) throw tooLarge(`more than ${maxTools} tools`);
    for (const t of raw) {
      const size = Buffer.byteLength(JSON.stringify(t) ?? '');
      bytes += size;
      if (bytes > maxBytes) throw tooLarge(`more than ${maxBytes} bytes`);
      const o = (t !== null && typeof t === 'object' ? t : {}) as Record<string, unknown>;
      const name = o['name'];
      if (typeof name !== 'string' || name.length === 0 || name.length > 128) {
        refused.push({ tool: String(name).slice(0, 128), reason: 'a tool name must be a string of 1-128 characters' });
        continue;
      }
      const description = typeof o['description'] === 'string' ? o['description'] : name;
      if (Buffer.byteLength(description) > maxDescription)
        throw tooLarge(`the description of ${JSON.stringify(name.slice(0, 64))} is over ${maxDescription} bytes`);
      const schema = o['inputSchema'];
      tools.push({
        name,
        description,
        inputSchema:
          schema !== null && typeof schema === 'object' && !Array.isArray(schema)
            ? (schema as Record<string, unknown>)
            : { type: 'object' },
      });
    }
    if (nextCursor === undefined || nextCursor === '') return { tools, refused };
    cursor = nextCursor;
  }
  throw tooLarge(`more than ${MAX_PAGES} pages`);
}
