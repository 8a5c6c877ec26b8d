import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from './agent-config.js';
import { planConfigUpdate, type ConfigUpdateRequest } from './config-update.js';

const cfg = parseAgentConfig({
  v: 1,
  tools: [
    { name: 'fs_read', enabled: true, visible: true },
    { name: 'fs_delete', enabled: false },
    { name: 'sys_code', enabled: true, restricted: true },
    { name: 'adf_shell', enabled: false, locked: true },
  ],
  locked_fields: ['limits.execution_timeout_ms', 'messaging'],
});

const plan = (r: ConfigUpdateRequest) => {
  const p = planConfigUpdate(cfg, r);
  return p.kind === 'apply' ? 'apply' : p.decision.code;
};

describe('planConfigUpdate', () => {
  it.each<[ConfigUpdateRequest, string]>([
    [{ path: 'tools.fs_delete.enabled', value: true }, 'apply'],
    [{ path: 'tools.fs_read.visible', value: 'false' }, 'apply'],
    [{ path: 'tools.0.enabled', value: false }, 'apply'],
    [{ path: 'limits.max_sql_rows', value: '100' }, 'apply'],
    [{ path: 'instructions', value: 'be nice' }, 'apply'],
    [{ path: 'security.require_signature', value: true }, 'apply'],
    [{ path: 'code_execution.model_invoke', value: false }, 'apply'],
    [{ path: 'tools', op: 'append', value: { name: 'db_execute', enabled: true } }, 'apply'],
    // owner-only segments anywhere
    [{ path: 'tools.sys_code.restricted', value: false }, 'CONFIG_PATH_FORBIDDEN'],
    [{ path: 'tools.adf_shell.locked', value: false }, 'CONFIG_PATH_FORBIDDEN'],
    [{ path: 'code_execution.restricted_methods', value: [] }, 'CONFIG_PATH_FORBIDDEN'],
    [{ path: 'locked_fields', value: [] }, 'CONFIG_PATH_FORBIDDEN'],
    [{ path: 'metadata.x', value: 1 }, 'CONFIG_PATH_FORBIDDEN'],
    [{ path: 'v', value: 2 }, 'CONFIG_PATH_FORBIDDEN'],
    // guard paths: hard deny
    [{ path: 'security.allow_unsigned', value: false }, 'CONFIG_GUARD_PATH'],
    [{ path: 'security.require_middleware_authorization', value: false }, 'CONFIG_GUARD_PATH'],
    [{ path: 'security.middleware.inbox', value: [] }, 'CONFIG_GUARD_PATH'],
    [{ path: 'security.middleware', value: {} }, 'CONFIG_GUARD_PATH'],
    [{ path: 'security.fetch_middleware', value: [] }, 'CONFIG_GUARD_PATH'],
    [{ path: 'security', value: {} }, 'CONFIG_GUARD_PATH'],
    // typos and bad paths
    [{ path: 'limitz.x', value: 1 }, 'CONFIG_UNKNOWN_KEY'],
    [{ path: 'tools.nope.enabled', value: true }, 'CONFIG_PATH_INVALID'],
    [{ path: 'tools..enabled', value: true }, 'CONFIG_PATH_INVALID'],
    // locks: code-defined and stored, parent and child
    [{ path: 'security.allow_local_fetch', value: true }, 'CONFIG_LOCKED'],
    [{ path: 'stream_bind.allow_tcp_bind', value: true }, 'CONFIG_LOCKED'],
    [{ path: 'stream_bind', value: { allow_tcp_bind: true } }, 'CONFIG_LOCKED'],
    [{ path: 'limits.execution_timeout_ms', value: 1000 }, 'CONFIG_LOCKED'],
    [{ path: 'limits', value: { execution_timeout_ms: 1000 } }, 'CONFIG_LOCKED'],
    [{ path: 'messaging.receive', value: true }, 'CONFIG_LOCKED'],
    [{ path: 'tools.adf_shell.enabled', value: true }, 'CONFIG_LOCKED'],
    [{ path: 'security.table_protections', value: {} }, 'CONFIG_LOCKED'],
    [
      { path: 'triggers', op: 'append', value: { type: 'on_inbox', scope: 'system', lambda: 'trusted.js:run' } },
      'CONFIG_LOCKED',
    ],
    // declaration integrity
    [{ path: 'tools', op: 'append', value: { name: 'sys_code', enabled: true } }, 'CONFIG_DUPLICATE_DECLARATION'],
    [{ path: 'tools.sys_code', value: { name: 'sys_code', enabled: true } }, 'CONFIG_DECLARATION_WEAKENED'],
    [{ path: 'tools', value: [{ name: 'sys_code', enabled: true, restricted: true }] }, 'CONFIG_LOCKED'],
    [
      { path: 'tools', op: 'append', value: { name: 'sys_update_config', enabled: true } },
      'CONFIG_DECLARATION_WEAKENED',
    ],
    [
      { path: 'tools', op: 'append', value: { name: 'compute_exec', enabled: true, restricted: true } },
      'CONFIG_DECLARATION_WEAKENED',
    ],
    // re-validation
    [{ path: 'limits.max_sql_rows', value: 'lots' }, 'CONFIG_INVALID_AFTER_UPDATE'],
    [{ path: 'tools.fs_read.bogus', value: 1 }, 'CONFIG_INVALID_AFTER_UPDATE'],
    [{ path: 'model.temperature', value: 9 }, 'CONFIG_INVALID_AFTER_UPDATE'],
  ])('%j -> %s', (req, want) => expect(plan(req)).toBe(want));

  it('never mutates the input config', () => {
    const before = JSON.stringify(cfg);
    planConfigUpdate(cfg, { path: 'tools.fs_delete.enabled', value: true });
    expect(JSON.stringify(cfg)).toBe(before);
  });
});
