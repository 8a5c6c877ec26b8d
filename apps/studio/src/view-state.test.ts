import { describe, expect, it } from 'vitest';
import { approvalKeyAction, moveSelection } from './approval-keys';
import { filterAudit, NO_FILTER, principalsOf } from './audit-filter';
import { configLeafPaths, parseConfigValue } from './config-paths';
import { confirmationFor, toolRisk, visibilityNote } from './tool-risk';
import type { AuditRow, ToolRow } from './types';

const noMods = { ctrl: false, meta: false, alt: false };
const tool = (name: string, f: Partial<ToolRow> = {}): ToolRow => ({
  name,
  enabled: false,
  visible: false,
  restricted: false,
  locked: false,
  ...f,
});

describe('approvals keyboard', () => {
  it('maps keys to actions, and never while typing in a field or with a modifier', () => {
    expect(approvalKeyAction('a', { tagName: 'ARTICLE' }, noMods)).toBe('approve');
    expect(approvalKeyAction('d', { tagName: 'BODY' }, noMods)).toBe('deny');
    expect(approvalKeyAction('j', { tagName: 'BUTTON' }, noMods)).toBe('next');
    expect(approvalKeyAction('ArrowUp', { tagName: 'ARTICLE' }, noMods)).toBe('previous');
    expect(approvalKeyAction('a', { tagName: 'TEXTAREA' }, noMods)).toBeUndefined();
    expect(approvalKeyAction('d', { tagName: 'input' }, noMods)).toBeUndefined();
    expect(approvalKeyAction('a', { tagName: 'DIV', isContentEditable: true }, noMods)).toBeUndefined();
    expect(approvalKeyAction('a', { tagName: 'ARTICLE' }, { ...noMods, ctrl: true })).toBeUndefined();
    expect(approvalKeyAction('Escape', { tagName: 'TEXTAREA' }, noMods)).toBe('escape');
    expect(approvalKeyAction('x', { tagName: 'ARTICLE' }, noMods)).toBeUndefined();
  });

  it('moves the selection within the list', () => {
    expect(moveSelection(0, 3, 'next')).toBe(1);
    expect(moveSelection(2, 3, 'next')).toBe(2);
    expect(moveSelection(0, 3, 'previous')).toBe(0);
    expect(moveSelection(0, 0, 'next')).toBe(0);
  });
});

describe('tool switches', () => {
  it('asks before enabling a locked or dangerous tool, never before turning one off', () => {
    expect(confirmationFor(tool('adf_shell', { locked: true }), 'enabled')).toMatch(
      /^Enable adf_shell\? It runs shell commands.*locked off by default/,
    );
    expect(confirmationFor(tool('ws_connect', { locked: true }), 'enabled')).toMatch(/WebSocket/);
    expect(confirmationFor(tool('fs_delete'), 'enabled')).toMatch(/dangerous list/);
    expect(confirmationFor(tool('mcp_github_search'), 'enabled')).toMatch(/MCP server/);
    expect(confirmationFor(tool('adf_shell', { locked: true, enabled: true }), 'enabled')).toBeUndefined();
    expect(confirmationFor(tool('adf_shell', { locked: true }), 'visible')).toBeUndefined();
    expect(confirmationFor(tool('fs_read'), 'enabled')).toBeUndefined();
    expect(toolRisk('fs_read')).toBeUndefined();
  });

  it('says when an enabled tool stays invisible to the model', () => {
    expect(visibilityNote(tool('ws_connect', { enabled: true }))).toMatch(/enabled but not visible/);
    expect(visibilityNote(tool('ws_connect', { enabled: true, visible: true }))).toBeUndefined();
    expect(visibilityNote(tool('ws_connect'))).toBeUndefined();
  });
});

describe('config form', () => {
  it('offers every leaf path of the config, tools as one', () => {
    expect(
      configLeafPaths({
        v: 1,
        limits: { max_active_turns: null, max_sql_rows: 500 },
        tools: [{ name: 'x' }],
        metadata: {},
      }),
    ).toEqual(['limits.max_active_turns', 'limits.max_sql_rows', 'tools', 'v']);
  });

  it('parses JSON values, and anything else as a string', () => {
    expect(parseConfigValue('20')).toBe(20);
    expect(parseConfigValue('true')).toBe(true);
    expect(parseConfigValue('["a"]')).toEqual(['a']);
    expect(parseConfigValue('hello')).toBe('hello');
  });
});

describe('audit filters', () => {
  const row = (log: string, kind: string, id: string, action: string, decision: 'allow' | 'deny'): AuditRow => ({
    log,
    kind: 'agent',
    time: '2030-01-01T00:00:00Z',
    principal: { kind, id },
    action,
    target: `t-${action}`,
    decision,
  });
  const rows = [
    row('agent:a', 'owner', 'control-api', 'config.update', 'allow'),
    row('agent:a', 'llm', 'a', 'tool.call', 'deny'),
    row('sandbox-runs', 'process', 'r1', 'egress.connect', 'deny'),
  ];

  it('filters by log, principal, action (or target) and decision, together', () => {
    expect(filterAudit(rows, NO_FILTER)).toHaveLength(3);
    expect(filterAudit(rows, { ...NO_FILTER, decision: 'deny' }).map((r) => r.action)).toEqual([
      'tool.call',
      'egress.connect',
    ]);
    expect(filterAudit(rows, { ...NO_FILTER, principal: 'process:r1' }).map((r) => r.log)).toEqual(['sandbox-runs']);
    expect(filterAudit(rows, { ...NO_FILTER, action: 'CONFIG' }).map((r) => r.action)).toEqual(['config.update']);
    expect(filterAudit(rows, { ...NO_FILTER, action: 't-tool' }).map((r) => r.action)).toEqual(['tool.call']);
    expect(filterAudit(rows, { ...NO_FILTER, log: 'agent:a', decision: 'deny' }).map((r) => r.action)).toEqual([
      'tool.call',
    ]);
  });

  it('lists each principal once, sorted', () => {
    expect(principalsOf([...rows, ...rows])).toEqual(['llm:a', 'owner:control-api', 'process:r1']);
  });
});
