import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/egress public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(mod).sort()).toEqual([
      'DEFAULT_CLIENT_LIMITS',
      'DEFAULT_LIMITS',
      'EGRESS_CODES',
      'MAX_UDP_DATAGRAM',
      'classifyAddress',
      'createConnectionBudget',
      'createEgressClient',
      'createEgressDispatcher',
      'createEgressGuard',
      'createEgressHttpAgent',
      'createEgressHttpsAgent',
      'createEgressProxy',
      'evaluateUrl',
      'explainUrl',
      'redactUrl',
    ]);
  });
});
