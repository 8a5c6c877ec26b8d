import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from './agent-config.js';
import { sysGetConfigTool } from './config-tools.js';
import { REDACTED, redactConfig } from './redact-config.js';

const config = parseAgentConfig({
  v: 1,
  model: {
    provider: 'anthropic',
    model_id: 'm',
    api_key: 'sk-secret',
    max_tokens: 4096,
    api_key_env: 'ANTHROPIC_API_KEY',
  },
  limits: { max_file_read_tokens: 1234, max_tool_result_tokens: 5678 },
  mcp: { servers: [{ name: 'gh', command: 'x', env: { GH_TOKEN: 'ghp_x', LOG_LEVEL: 'debug' } }] },
  metadata: { github_token: 'ghp_meta', max_tokens: 99, note: 'n', nested: { password: 'p' } },
});

describe('redactConfig: only real secrets', () => {
  it('keeps every non-secret limit visible, including the ones whose name contains "token"', () => {
    const r = redactConfig(config) as { limits: Record<string, unknown>; model: Record<string, unknown> };
    expect(r.limits['max_file_read_tokens']).toBe(1234);
    expect(r.limits['max_tool_result_tokens']).toBe(5678);
    expect(r.model['max_tokens']).toBe(4096);
    // The name of the env var is not the key.
    expect(r.model['api_key_env']).toBe('ANTHROPIC_API_KEY');
  });

  it('redacts the inline API key, every MCP env value and secret-named metadata', () => {
    const r = redactConfig(config) as {
      model: Record<string, unknown>;
      mcp: { servers: { env: Record<string, unknown> }[] };
      metadata: Record<string, unknown>;
    };
    expect(r.model['api_key']).toBe(REDACTED);
    expect(r.mcp.servers[0]!.env).toEqual({ GH_TOKEN: REDACTED, LOG_LEVEL: REDACTED });
    expect(r.metadata).toEqual({ github_token: REDACTED, max_tokens: 99, note: 'n', nested: { password: REDACTED } });
    expect(JSON.stringify(r)).not.toMatch(/sk-secret|ghp_x|ghp_meta|"p"/);
  });

  it('sys_get_config shows the agent its limits (not hidden) and still hides its secrets', () => {
    const adf = { config: () => config } as unknown as Parameters<typeof sysGetConfigTool.run>[1]['adf'];
    const limits = sysGetConfigTool.run({ section: 'limits' }, { adf } as Parameters<
      typeof sysGetConfigTool.run
    >[1]) as Record<string, unknown>;
    expect(limits['max_file_read_tokens']).toBe(1234);
    const model = sysGetConfigTool.run({ section: 'model' }, { adf } as Parameters<
      typeof sysGetConfigTool.run
    >[1]) as Record<string, unknown>;
    expect(model['max_tokens']).toBe(4096);
    expect(model['api_key']).toBe(REDACTED);
  });
});
