import { notImplemented } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';

/** Where say/ask go: the loop provides these, so tools never hold UI state. */
export interface ChatHooks {
  say(text: string): void;
  /** Resolves with the human's answer; rejects on abort. */
  ask(question: string, signal: AbortSignal): Promise<string>;
}

/** say: emit text without ending the turn. (Refused to code by the gate.) */
export function createSayTool(hooks: () => ChatHooks): ToolDefinition<{ text: string }> {
  return {
    name: 'say',
    description: 'Say something to the human without ending your turn.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'What to say.', maxLength: 100_000 } },
      required: ['text'],
      additionalProperties: false,
    },
    run(args) {
      hooks().say(args.text);
      return { said: true };
    },
  };
}

/** ask: ask the human and wait for the answer. (Refused to code by the gate.) */
export function createAskTool(hooks: () => ChatHooks): ToolDefinition<{ question: string }> {
  return {
    name: 'ask',
    description: 'Ask the human a question and wait for the answer.',
    inputSchema: {
      type: 'object',
      properties: { question: { type: 'string', description: 'The question.', maxLength: 10_000 } },
      required: ['question'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      return { answer: await hooks().ask(args.question, ctx.signal) };
    },
  };
}

/** msg_send: wired by the messaging part; until then it says so. */
export const msgSendStubTool: ToolDefinition<Record<string, unknown>> = {
  name: 'msg_send',
  description: 'Send a signed message to another agent.',
  inputSchema: { type: 'object' },
  run() {
    throw notImplemented('msg_send (agent messaging)');
  },
};
