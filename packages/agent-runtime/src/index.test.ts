import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/agent-runtime public API', () => {
  // control API (part 3/3)
  it('exports the control API', () => {
    const control = [
      'CONTROL_ERROR_STATUS',
      'CSP_REPORT_PATH',
      'buildCsp',
      'controlError',
      'createControlServer',
      'createGuardSettings',
      'createWorkspaceAgents',
      'evaluateBearer',
      'evaluateControlRequest',
      'evaluateRelativePath',
      'generateControlToken',
      'loadOrCreateToken',
    ];
    expect(Object.keys(mod).filter((k) => control.includes(k)).sort()).toEqual(control);
  });
});
