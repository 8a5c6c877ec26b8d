import type { z } from 'zod';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from './agent-config-schema.js';
import { defaultAgentConfig, parseAgentConfig } from './agent-config.js';
import { BUILT_IN_TOOLS } from './built-in-tools.js';
import { redactConfig } from './redact-config.js';

type Def = {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = ['default', 'prefault', 'optional', 'nullable'];

/** Collects every object field (recursively) without a description on it or on its wrapped type. */
function undescribed(schema: z.ZodType, path: string, out: string[]): void {
  let s = schema;
  let described = s.description !== undefined;
  while (WRAPPERS.includes(defOf(s).type) && defOf(s).innerType) {
    s = defOf(s).innerType as z.ZodType;
    described ||= s.description !== undefined;
  }
  if (!described) out.push(path);
  const d = defOf(s);
  if (d.type === 'object') for (const [k, v] of Object.entries(d.shape ?? {})) undescribed(v, `${path}.${k}`, out);
  if (d.type === 'array' && d.element) undescribed(d.element, `${path}[]`, out);
  if (d.type === 'record' && d.valueType) undescribed(d.valueType, `${path}{}`, out);
}

describe('agent config schema', () => {
  it('every field has a description', () => {
    const missing: string[] = [];
    undescribed(agentConfigSchema, 'config', missing);
    expect(missing).toEqual([]);
  });

  it('is strict and reports every problem at once with paths', () => {
    const err = thrownBy(() =>
      parseAgentConfig({
        v: 2,
        nope: 1,
        limits: { max_sql_rows: 0 },
        tools: [{ name: '' }],
        security: { allow_unsigned: 'yes' },
      }),
    );
    expect(err.code).toBeTrustCode('ADF_CONFIG_INVALID');
    expect(err.problems.map((p) => p.path).sort()).toEqual(
      ['', 'limits.max_sql_rows', 'security.allow_unsigned', 'tools.0.name', 'v'].sort(),
    );
  });

  it('defaults follow the default security posture', () => {
    const c = defaultAgentConfig();
    expect(c.autonomous).toBe(false);
    expect(c.messaging.receive).toBe(false);
    expect(c.security.allow_unsigned).toBe(true);
    expect(c.security.require_middleware_authorization).toBe(true);
    expect(c.security.allow_local_fetch).toBe(false);
    expect(c.code_execution.restricted_methods).toEqual(['attestation_issue']);
    const t = (n: string) => c.tools.find((x) => x.name === n);
    expect(t('adf_shell')).toMatchObject({ enabled: false, locked: true });
    for (const ws of ['ws_connect', 'ws_send', 'ws_disconnect'])
      expect(t(ws)).toMatchObject({ enabled: false, locked: true });
    expect(t('sys_fetch')).toMatchObject({ enabled: true });
    expect(t('sys_update_config')).toMatchObject({ enabled: true, restricted: true });
    expect(c.tools).toHaveLength(BUILT_IN_TOOLS.length);
    expect(Object.isFrozen(c.limits)).toBe(true);
  });

  it('a missing enabled/visible means false', () => {
    expect(parseAgentConfig({ v: 1, tools: [{ name: 'x' }] }).tools[0]).toEqual({
      name: 'x',
      enabled: false,
      visible: false,
    });
  });

  it('redaction hides secrets but keeps structure', () => {
    const c = parseAgentConfig({
      v: 1,
      model: { provider: 'anthropic', model_id: 'm', api_key: 'k' },
      metadata: { password: 'p', note: 'n' },
    });
    const r = redactConfig(c) as { model: Record<string, unknown>; metadata: Record<string, unknown> };
    expect(r.model['api_key']).toBe('__redacted__');
    expect(r.metadata).toEqual({ password: '__redacted__', note: 'n' });
  });
});
