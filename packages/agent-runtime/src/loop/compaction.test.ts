import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import type { ModelMessage, ModelRequest, ModelResponse } from '../providers/model-provider.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { openAgent } from './agent.js';
import { LOOP_SUMMARY_ROLE, chooseCut, estimateTokens, parseSummary } from './compaction.js';

// Long conversations: the model sees a bounded window, older turns become a summary row in
// adf_loop, and a turn reads only the rows it sends.
const answer = (text: string): ModelResponse => ({
  content: [{ type: 'text', text }],
  stopReason: 'end_turn',
  usage: { inputTokens: 0, outputTokens: 0 },
  model: 'scripted',
});
const isSummaryRequest = (r: ModelRequest) => r.system?.startsWith('You are compacting') === true;
const tokensOf = (messages: readonly ModelMessage[]) => messages.reduce((n, m) => n + estimateTokens(m), 0);

function agentWith(model: Record<string, unknown>, reply: (r: ModelRequest) => ModelResponse) {
  const path = join(mkdtempSync(join(tmpdir(), 'compaction-')), 'agent.adf');
  const config = structuredClone(defaultAgentConfig()) as unknown as Record<string, unknown>;
  config['model'] = { ...(config['model'] as object), ...model };
  config['tools'] = [];
  createAdf(path, { template: config }).close();
  const provider = createScriptedProvider();
  const agent = openAgent(path, { provider });
  // Every model call answers through `reply` (a step per call, pushed as it is needed).
  const step = (r: ModelRequest) => {
    provider.push(step);
    return reply(r);
  };
  provider.push(step);
  // Count the adf_loop rows each read returns: a turn must read only its window.
  const reads: number[] = [];
  const list = agent.adf.loop.list.bind(agent.adf.loop);
  (agent.adf.loop as { list: typeof list }).list = (o) => {
    const rows = list(o);
    reads.push(rows.length);
    return rows;
  };
  return { agent, provider, reads };
}

describe('a long conversation at a flat cost', () => {
  it('2,000 turns with the scripted provider: bounded window, summaries in adf_loop, bounded reads', async () => {
    const { agent, provider, reads } = agentWith({ context_window: 2_000, compaction: 'truncate' }, (r) =>
      answer(`reply to ${String(r.messages.at(-1)?.content).slice(0, 40)}`),
    );
    for (let i = 1; i <= 2_000; i++) {
      const out = await agent.send(`message ${i}: ${'lorem ipsum '.repeat(5)}`);
      expect(out.stopReason).toBe('end_turn');
    }
    const requests = provider.requests.filter((r) => !isSummaryRequest(r));
    expect(requests).toHaveLength(2_000);
    const budgetTokens = 2_000; // the whole window; the history's own budget is smaller
    expect(Math.max(...requests.map((r) => tokensOf(r.messages)))).toBeLessThanOrEqual(budgetTokens);
    expect(Math.max(...requests.map((r) => r.messages.length))).toBeLessThan(60);
    // The last request ends with the last message and starts with the truncation marker.
    const last = requests.at(-1)!;
    expect(JSON.stringify(last.messages.at(-1))).toContain('message 2000:');
    expect(JSON.stringify(last.messages[0])).toContain('[conversation compacted:');
    expect(JSON.stringify(last.messages[0])).toContain('truncated by the runtime');
    // Nothing was deleted: every turn is still in adf_loop, with the summaries between them.
    const rows = agent.adf.db.prepare('SELECT role, count(*) AS n FROM adf_loop GROUP BY role').all() as Array<{
      role: string;
      n: number;
    }>;
    const count = Object.fromEntries(rows.map((r) => [r.role, r.n]));
    expect(count['user']).toBe(2_000);
    expect(count['assistant']).toBe(2_000);
    expect(count[LOOP_SUMMARY_ROLE]).toBeGreaterThan(10);
    // A turn reads only its window: no read ever returns more than the window's rows (the old
    // loader read every row: 3,999 at the last turn).
    expect(Math.max(...reads)).toBeLessThan(80);
    // Between compactions a turn reads only the rows appended since its last read.
    expect([...reads].sort((a, b) => a - b)[Math.floor(reads.length / 2)]).toBeLessThanOrEqual(2);
    expect(agent.adf.logs.list({ limit: 10_000 }).some((l) => l.event === 'loop_compacted')).toBe(true);
    agent.close();
  }, 120_000);

  it("the agent's own model writes the summary, and the next turn is sent it", async () => {
    const { agent, provider } = agentWith({ context_window: 1_000 }, (r) =>
      isSummaryRequest(r) ? answer('SUMMARY: the owner counted to forty') : answer('ok'),
    );
    for (let i = 1; i <= 40; i++) await agent.send(`count ${i} ${'x'.repeat(120)}`);
    const summaries = agent.adf.db
      .prepare('SELECT content_json FROM adf_loop WHERE role = ? ORDER BY seq')
      .all(LOOP_SUMMARY_ROLE) as Array<{ content_json: string }>;
    expect(summaries.length).toBeGreaterThan(0);
    const s = parseSummary(JSON.parse(summaries.at(-1)!.content_json));
    expect(s).toMatchObject({ v: 1, kind: 'model', text: 'SUMMARY: the owner counted to forty' });
    const summaryCall = provider.requests.find(isSummaryRequest)!;
    expect(JSON.stringify(summaryCall.messages)).toContain('count 1 ');
    const lastTurn = provider.requests.filter((r) => !isSummaryRequest(r)).at(-1)!;
    expect(JSON.stringify(lastTurn.messages[0])).toContain('SUMMARY: the owner counted to forty');
    expect(JSON.stringify(lastTurn.messages)).not.toContain('count 1 ');
    agent.close();
  }, 60_000);

  it('a model that fails to summarise leaves a truncation marker and a warning; the turn goes on', async () => {
    const { agent } = agentWith({ context_window: 1_000 }, (r) => {
      if (isSummaryRequest(r)) throw new Error('model unavailable');
      return answer('ok');
    });
    for (let i = 1; i <= 30; i++) expect((await agent.send(`n ${i} ${'y'.repeat(120)}`)).stopReason).toBe('end_turn');
    const kinds = (
      agent.adf.db.prepare('SELECT content_json FROM adf_loop WHERE role = ?').all(LOOP_SUMMARY_ROLE) as Array<{
        content_json: string;
      }>
    ).map((r) => parseSummary(JSON.parse(r.content_json))?.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds)).toEqual(new Set(['truncation']));
    expect(agent.adf.logs.list({ limit: 1_000 }).some((l) => l.event === 'compaction_model_failed')).toBe(true);
    agent.close();
  }, 60_000);
});

describe('the window cache', () => {
  it('a cleared loop is read afresh: nothing of the old window reaches the model', async () => {
    const { agent, provider } = agentWith({}, () => answer('ok'));
    await agent.send('before the clear: secret plan');
    await agent.send('second');
    agent.adf.loop.clear();
    await agent.send('after the clear');
    const last = provider.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).not.toContain('secret plan');
    expect(last.messages).toHaveLength(1);
    agent.close();
  });

  it('rows written by others between turns (a note from code, a restart repair) are picked up', async () => {
    const { agent, provider } = agentWith({}, () => answer('ok'));
    await agent.send('one');
    agent.adf.loop.append({ role: 'runtime', content: { from: 'lib.js', text: 'note from code' } });
    await agent.send('two');
    expect(JSON.stringify(provider.requests.at(-1)!.messages)).toContain('note from code');
    agent.close();
  });
});

describe('chooseCut', () => {
  const text = (role: 'user' | 'assistant', n: number): ModelMessage => ({ role, content: 'z'.repeat(n) });
  const view = (messages: ModelMessage[]) => ({
    messages,
    seqs: messages.map((_m, i) => i + 1),
    tokens: tokensOf(messages),
  });

  it('keeps at most half the budget and never separates a tool result from its call', () => {
    const call: ModelMessage = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't', name: 'fs_read', input: {} }],
    };
    const result: ModelMessage = {
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't', content: 'r'.repeat(300) }],
    };
    const messages = [
      text('user', 400),
      text('assistant', 400),
      text('user', 400),
      call,
      result,
      text('assistant', 40),
    ];
    const cut = chooseCut(view(messages), 200)!;
    expect(messages[cut]).not.toBe(result);
    expect(cut).toBeGreaterThanOrEqual(1);
    expect(chooseCut(view([text('user', 10)]), 10)).toBeUndefined();
  });

  it('the last exchange is never cut apart, even when it alone is over budget', () => {
    const call: ModelMessage = { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] };
    const result: ModelMessage = { role: 'user', content: [{ type: 'tool_result', toolUseId: 't', content: 'big' }] };
    const messages = [text('user', 4000), call, result];
    expect(chooseCut(view(messages), 10)).toBe(1);
  });
});
