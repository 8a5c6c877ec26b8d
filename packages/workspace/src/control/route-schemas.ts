import { z } from 'zod';
import { controlError } from './control-error.js';

/** Body of `POST /api/v1/agents`. */
export const CreateAgentBody = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
      .describe('agent name, e.g. "researcher"'),
    description: z.string().max(500).optional().describe('one line shown in the list'),
  })
  .strict();

/** Body of `POST …/chat`. */
export const ChatBody = z
  .object({ text: z.string().min(1).max(32_000).describe('the owner message, e.g. "summarise inbox"') })
  .strict();

/** Body of `POST …/tasks/:task/approve`. `args` replaces the model's arguments when given. */
export const ApproveBody = z
  .object({ args: z.unknown().optional().describe('modified arguments, e.g. {"path":"a.txt"}') })
  .strict();

/** Body of `POST …/tasks/:task/deny`. */
export const DenyBody = z
  .object({ feedback: z.string().max(4000).optional().describe('told to the model, e.g. "use the cache"') })
  .strict();

/** Body of `PATCH …/config`: one owner change. */
export const ConfigBody = z
  .object({
    path: z
      .string()
      .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/)
      .describe('dotted path, e.g. "limits.max_turns"'),
    value: z.unknown().describe('the new JSON value, e.g. 20'),
  })
  .strict();

/** Body of `PATCH …/tools/:name`. */
export const ToolBody = z
  .object({
    enabled: z.boolean().optional().describe('whether the tool exists for the agent'),
    visible: z.boolean().optional().describe('whether the model is shown the tool'),
    restricted: z.boolean().optional().describe('whether loop calls need approval'),
    locked: z.boolean().optional().describe('whether the agent may change this row'),
  })
  .strict();

/** Body of `PUT …/authorized/*path`. */
export const AuthorizedBody = z
  .object({ authorized: z.boolean().describe('true lets this file run as authorized code') })
  .strict();

/** Body of `POST …/trigger`. */
export const TriggerBody = z
  .object({
    source: z.string().min(1).max(64).describe('who triggers, e.g. "timer" or "webhook"; "user" is refused'),
    payload: z.unknown().optional().describe('trigger data'),
  })
  .strict();

/** Body of `POST /api/v1/policy/validate`. */
export const PolicyValidateBody = z
  .object({ text: z.string().max(60_000).describe('the egress policy file text (JSON, v: 1)') })
  .strict();

/** Body of `POST /api/v1/policy/check`. */
export const PolicyCheckBody = z
  .object({
    text: z.string().max(60_000).optional().describe('the egress policy file text; omitted: the address guard alone'),
    url: z.string().min(1).max(4096).describe('the URL to judge, e.g. "https://api.github.com/zen"'),
    mode: z.enum(['default', 'allow-local', 'strict']).optional().describe('overrides the policy guard mode'),
    resolve: z
      .record(z.string().min(1).max(253), z.array(z.string().min(1).max(64)).min(1).max(16))
      .optional()
      .describe('answers for names instead of DNS, e.g. {"api.test": ["10.0.0.5"]}'),
  })
  .strict();

/** Validates `body` against `schema`, reporting every problem at once as CONTROL_BAD_REQUEST. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
  throw controlError(
    'CONTROL_BAD_REQUEST',
    `invalid request body: ${problems}`,
    'see the route schema in the agent-runtime README',
  );
}
