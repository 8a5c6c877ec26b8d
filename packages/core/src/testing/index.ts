export { trustMatchers } from './matchers.js';
export type { TrustMatchers } from './matchers.js';
export { createTestContext, createTestRequest } from './requests.js';
