import { z } from 'zod';
import { controlError } from './control-error.js';
import type { Route } from './control-routes.js';
import { validatePolicy } from './policy-check.js';
import { parseBody } from './route-schemas.js';

/** The host's egress policy file as the studio sees it. */
export interface PolicyFileView {
  /** Where the file is, e.g. `<workspace>/egress-policy.json`. */
  readonly path: string;
  readonly exists: boolean;
  /** Its text; empty when it does not exist. */
  readonly text: string;
  /** SHA-256 (hex) of the text as read; null when it does not exist. Send it back to save. */
  readonly sha256: string | null;
}

/**
 * The host's egress policy file (for `trust studio`: the policy plugins with network grants run
 * under). `write` replaces the file only if its content still hashes to `expected` (null: the file
 * must not exist), else it throws `CONTROL_CONFLICT`; the text it gets is already valid.
 */
export interface PolicyFileStore {
  read(): PolicyFileView | Promise<PolicyFileView>;
  write(text: string, expected: string | null): { sha256: string } | Promise<{ sha256: string }>;
}

/** Body of `PUT /api/v1/policy/file`. */
export const PolicyFileBody = z
  .object({
    text: z.string().max(60_000).describe('the new policy file text (JSON, v: 1)'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .describe('the sha256 of the text you edited, from GET /policy/file; null: the file is new'),
  })
  .strict();

/**
 * `GET /policy/file` reads the host's policy file; `PUT /policy/file` saves a text the core
 * validator accepts, only over the version it was edited from (409 `CONTROL_CONFLICT` otherwise).
 * Without a store both answer 501.
 */
export function policyFileRoutes(store: PolicyFileStore | undefined): readonly Route[] {
  const need = (): PolicyFileStore => {
    if (store) return store;
    throw controlError(
      'NOT_IMPLEMENTED',
      'this host keeps no egress policy file',
      'run `trust studio`, which keeps the policy in <workspace>/egress-policy.json',
    );
  };
  return [
    { method: 'GET', pattern: /^\/policy\/file$/, handler: async () => need().read() },
    {
      method: 'PUT',
      pattern: /^\/policy\/file$/,
      handler: async (ctx) => {
        const body = parseBody(PolicyFileBody, ctx.body);
        const file = need();
        const checked = validatePolicy(body.text);
        if (!checked.ok) {
          const first = checked.problems[0];
          throw controlError(
            'CONTROL_BAD_REQUEST',
            `the policy is not valid, nothing was saved: ${checked.problems
              .map((p) => `${p.path || '(root)'}: ${p.message}`)
              .join('; ')}`,
            first?.hint ?? 'fix the problems the editor shows, then save again',
          );
        }
        return file.write(body.text, body.sha256);
      },
    },
  ];
}
