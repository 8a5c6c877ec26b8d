import type { ModelProvider } from '@trust/agent-runtime';

/** Longest single fragment forwarded; a longer one is cut into pieces of this size. */
export const DELTA_MAX_CHARS = 4096;

/**
 * The same provider, whose streamed text fragments are also handed to `onDelta` (for the studio's
 * live stream) while the answer arrives. What the loop gets back is unchanged: the final turn
 * still comes from the provider's complete answer, never from the fragments.
 *
 * @example
 * const provider = withTextDeltas(createAnthropicProvider(opts), (text) =>
 *   emit({ kind: 'delta', agent: id, data: { text } }),
 * );
 */
export function withTextDeltas(inner: ModelProvider, onDelta: (text: string) => void): ModelProvider {
  return {
    kind: inner.kind,
    label: inner.label,
    model: inner.model,
    createMessage: (request) =>
      inner.createMessage({
        ...request,
        onTextDelta: (text) => {
          request.onTextDelta?.(text);
          for (let i = 0; i < text.length; i += DELTA_MAX_CHARS) onDelta(text.slice(i, i + DELTA_MAX_CHARS));
        },
      }),
  };
}
