import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { parseToolArguments } from '../providers/provider-http.js';
import { createToolRegistry, type ToolDefinition } from './tool-definition.js';
import { createToolGate } from './tool-gate.js';

// Tool arguments (from the model, code or the shell) nest at most 64 levels: checked iteratively
// at the gate before validation, audited like every other refusal.
const sink: ToolDefinition<Record<string, unknown>> = {
  name: 'sink',
  description: 'takes anything',
  inputSchema: { type: 'object' },
  run: () => 'ok',
};
const nested = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));

function setup() {
  const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'gate-depth-')), 'a.adf'), {
    template: { v: 1, tools: [{ name: 'sink', enabled: true }] },
  });
  return { adf, gate: createToolGate({ adf, registry: createToolRegistry([sink]) }) };
}

describe('tool arguments: nesting cap 64', () => {
  it('runs with arguments nested 64 levels; refuses 65 with INPUT_TOO_DEEP, audited', async () => {
    const { adf, gate } = setup();
    expect(await gate.call('sink', { deep: nested(63) }, { origin: 'llm' })).toBe('ok');
    await expect(gate.call('sink', { deep: nested(64) }, { origin: 'llm' })).rejects.toHaveTrustCode('INPUT_TOO_DEEP');
    await expect(gate.call('sink', { deep: nested(100_000) }, { origin: 'code' })).rejects.toHaveTrustCode(
      'INPUT_TOO_DEEP',
    );
    expect(
      adf.audit.list({ action: 'tool.call' }).filter((e) => e.decision === 'deny' && e.code === 'INPUT_TOO_DEEP'),
    ).toHaveLength(2);
    adf.close();
  });

  it('a model response deeper than the provider cap is refused before it is parsed or stored', () => {
    expect(parseToolArguments(JSON.stringify({ deep: nested(63) }))).toEqual({ deep: nested(63) });
    expect(() => parseToolArguments(`{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toThrowTrustError(
      'INPUT_TOO_DEEP',
    );
  });
});
