import { z } from 'zod';
import { count, fn, positive, withMethods } from '../options/strict-options.js';

const retrySchema = z
  .object({
    maxAttempts: count('attempts in total, including the first (at most 10 are made), e.g. 3').optional(),
    baseDelayMs: positive('first backoff in ms, doubled per attempt, e.g. 500').optional(),
    maxDelayMs: positive('ceiling of one backoff in ms, e.g. 8000').optional(),
  })
  .strict();

/** The strict schema of `createOpenAIProvider`'s and `createAnthropicProvider`'s options. */
export const httpProviderOptionsSchema = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }).describe('the API root, e.g. "https://api.openai.com/v1"'),
    model: z.string().min(1).describe('the model name, e.g. "gpt-4o-mini"'),
    egress: withMethods('the @trust/egress client, e.g. createEgressClient({ policy })', 'fetch'),
    principal: z
      .object({ kind: z.string(), id: z.string() })
      .loose()
      .optional()
      .describe('principal requests go out for, e.g. createPrincipal("llm", "model-provider")'),
    stream: z.boolean().optional().describe('stream answers over SSE, e.g. true'),
    retry: retrySchema.optional().describe('retries of transient failures, e.g. { maxAttempts: 3 }'),
    sleep: fn('waits between retries, e.g. (ms) => new Promise((r) => setTimeout(r, ms))').optional(),
    maxTokens: count('default max output tokens, e.g. 4096').optional(),
  })
  .strict()
  .describe('provider options, e.g. { baseUrl, model, egress }');
