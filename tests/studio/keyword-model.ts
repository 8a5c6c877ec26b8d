// A deterministic stand-in for the model, for the studio tests: it answers the owner's message by
// keyword and answers a tool result with a fixed sentence. Structurally a `ModelProvider` of
// @trust/agent-runtime (kind `scripted`, and it says so in its label).

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
interface Message {
  role: 'user' | 'assistant';
  content: string | { type: string; content?: string; isError?: boolean }[];
}

export interface KeywordRule {
  /** Substring of the owner's message. */
  readonly when: string;
  readonly reply: readonly Block[];
}

export function createKeywordModel(
  rules: readonly KeywordRule[],
  afterTool: (result: string, isError: boolean) => string,
) {
  let n = 0;
  return {
    kind: 'scripted' as const,
    label: 'scripted (deterministic test provider, no model)',
    model: 'scripted',
    async createMessage(request: { messages: readonly Message[] }) {
      const last = request.messages[request.messages.length - 1];
      let content: readonly Block[];
      if (
        last !== undefined &&
        typeof last.content !== 'string' &&
        last.content.some((b) => b.type === 'tool_result')
      ) {
        const r = last.content.find((b) => b.type === 'tool_result')!;
        content = [{ type: 'text', text: afterTool(String(r.content ?? ''), r.isError === true) }];
      } else {
        const text = typeof last?.content === 'string' ? last.content : '';
        const rule = rules.find((x) => text.includes(x.when));
        content = rule
          ? rule.reply.map((b) => {
              if (b.type !== 'tool_use') return b;
              n += 1;
              return { ...b, id: `call-${n}` };
            })
          : [{ type: 'text', text: 'I have nothing to add.' }];
      }
      const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      return { content, stopReason, usage: { inputTokens: 0, outputTokens: 0 }, model: 'scripted' };
    },
  };
}
