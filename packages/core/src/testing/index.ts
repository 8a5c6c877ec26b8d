export { trustMatchers } from './matchers.js';
export type { TrustAsymmetricMatchers, TrustMatchers } from './matchers.js';
export type { ExpectedProblem, TextExpectation } from './options-refusal.js';
export { createTestContext, createTestRequest } from './requests.js';
export { rejectionOf, thrownBy } from './thrown-by.js';
