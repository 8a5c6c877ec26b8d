// Vitest setup (not shipped): registers the trust matchers (`toThrowTrustError`, `toHaveTrustCode`,
// `toBeTrustCode`, `toBeDenied`, …). Importing `@trust/core/testing` here also brings their types,
// which take only known error codes, into this package's type-check.
import { expect } from 'vitest';
import { trustMatchers } from '@trust/core/testing';

expect.extend(trustMatchers);
