export { trustMatchers } from './matchers.js';
export type { TrustAsymmetricMatchers, TrustMatchers } from './matchers.js';
export { createTestContext, createTestRequest } from './requests.js';
