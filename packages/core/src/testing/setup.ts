// Vitest setup for core's own tests: registers the trust matchers.
import { expect } from 'vitest';
import { trustMatchers } from './matchers.js';

expect.extend(trustMatchers);
