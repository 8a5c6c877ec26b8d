import { describe, expect, it } from 'vitest';
import { evaluateMcpEnvVar, filterMcpEnv, mcpToolName } from './mcp-env.js';

describe('MCP env block list', () => {
  it.each([
    ['NODE_OPTIONS', false],
    ['node_options', false],
    ['LD_PRELOAD', false],
    ['LD_LIBRARY_PATH', false],
    ['LD_AUDIT', false],
    ['DYLD_INSERT_LIBRARIES', false],
    ['DYLD_LIBRARY_PATH', false],
    ['dyld_anything', false],
    ['ELECTRON_RUN_AS_NODE', false],
    ['BASH_ENV', false],
    ['A=B', false],
    ['', false],
    ['PATH', true],
    ['GITHUB_REPO', true],
    ['LOG_LEVEL', true],
  ])('%s → allowed=%s', (name, allowed) => {
    expect(evaluateMcpEnvVar(name).allow).toBe(allowed);
  });

  it('filters and reports', () => {
    expect(filterMcpEnv({ A: '1', NODE_OPTIONS: 'x', DYLD_X: 'y' })).toEqual({
      env: { A: '1' },
      refused: ['NODE_OPTIONS', 'DYLD_X'],
    });
  });

  it.each([
    ['github', 'search_code', 'mcp_github_search_code'],
    ['my-server', 'Get.Thing', 'mcp_my__dserver_x_get_92e__thing_'],
    ['x', '---', 'mcp_x_x_92d__92d__92d__'],
  ])('%s/%s → %s', (s, t, n) => {
    expect(mcpToolName(s, t)).toBe(n);
  });
});
