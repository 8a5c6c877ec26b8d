import { TrustError } from '@trust/core';
import type { ModelProvider, ModelRequest, ModelResponse, OutputBlock, StopReason } from './model-provider.js';

/** One scripted answer: a full response, just blocks, or a function of the request. */
export type ScriptedStep =
  | {
      readonly content: readonly OutputBlock[];
      readonly stopReason?: StopReason;
      readonly usage?: ModelResponse['usage'];
    }
  | ((request: ModelRequest) => ModelResponse | Promise<ModelResponse>);

/** A scripted provider with the requests it received, for assertions. */
export interface ScriptedProvider extends ModelProvider {
  readonly kind: 'scripted';
  readonly requests: readonly ModelRequest[];
  /** Steps not consumed yet. */
  remaining(): number;
  /** Appends more steps (e.g. after a restart in a test). */
  push(...steps: ScriptedStep[]): void;
}

/** The label shown wherever a scripted provider appears (status, loop rows, UI). */
export const SCRIPTED_LABEL = 'scripted (deterministic test provider, no model)';

/**
 * A provider that answers from a queue: the deterministic engine of tests and of the offline
 * demo. It never contacts anything, and it says so in its label and model id.
 *
 * @example
 * ```ts
 * const provider = createScriptedProvider([
 *   { content: [{ type: 'tool_use', id: 't1', name: 'fs_read', input: { path: 'notes.md' } }] },
 *   { content: [{ type: 'text', text: 'done' }] },
 * ]);
 * ```
 */
export function createScriptedProvider(steps: readonly ScriptedStep[] = []): ScriptedProvider {
  const queue = [...steps];
  const requests: ModelRequest[] = [];
  return {
    kind: 'scripted',
    label: SCRIPTED_LABEL,
    model: 'scripted',
    get requests() {
      return requests;
    },
    remaining: () => queue.length,
    push: (...more) => {
      queue.push(...more);
    },
    async createMessage(request) {
      requests.push(request);
      if (request.signal?.aborted) throw new TrustError('PROVIDER_ABORTED', 'model request aborted');
      const step = queue.shift();
      if (step === undefined)
        throw new TrustError('PROVIDER_SCRIPT_EXHAUSTED', 'the scripted provider has no more responses', {
          hint: 'add a step to the script for every model turn the test expects',
        });
      if (typeof step === 'function') return step(request);
      for (const b of step.content) if (b.type === 'text') request.onTextDelta?.(b.text);
      const hasTool = step.content.some((b) => b.type === 'tool_use');
      return {
        content: step.content,
        stopReason: step.stopReason ?? (hasTool ? 'tool_use' : 'end_turn'),
        usage: step.usage ?? { inputTokens: 0, outputTokens: 0 },
        model: 'scripted',
      };
    },
  };
}
