import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/testing public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(mod).sort()).toEqual(['createStubResolver', 'startPeer']);
  });
});
