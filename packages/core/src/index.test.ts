// Pins the public API of @trust/core and its subpaths: an API change is a visible diff here.
import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import * as node from './node/index.js';
import * as testing from './testing/index.js';

describe('public API', () => {
  it('@trust/core exports exactly these names', () => {
    expect(Object.keys(core).sort()).toEqual([
      'AUDIT_ERROR_CODES',
      'CAPABILITY_ERROR_CODES',
      'CAPABILITY_NAMES',
      'CAPABILITY_RISKS',
      'COMMON_PUBLIC_SUFFIXES',
      'CORE_ERROR_CODES',
      'DEFAULT_MAX_JSON_DEPTH',
      'GENESIS_HASH',
      'POLICY_ERROR_CODES',
      'PRINCIPAL_KINDS',
      'TrustError',
      'allow',
      'allowHosts',
      'auditDecision',
      'canonicalJson',
      'chain',
      'checkJsonText',
      'checkJsonValue',
      'cidrContains',
      'compilePolicy',
      'computeEventHash',
      'createMemoryAuditSink',
      'createPrincipal',
      'deniedError',
      'deny',
      'denyAll',
      'denyHosts',
      'editDistance',
      'formatCapability',
      'formatCidr',
      'formatHostRule',
      'formatIp',
      'injectHeaders',
      'ipEquals',
      'isAllowed',
      'isDenied',
      'isIpv4Mapped',
      'isPathWithin',
      'isTrustError',
      'matchHostRule',
      'normalizeAbsolutePath',
      'notImplemented',
      'parseCapabilities',
      'parseCidr',
      'parseHostRule',
      'parseHostRules',
      'parseIp',
      'parseIpWithZone',
      'parseJsonWithLimits',
      'parsePolicyFile',
      'parsePolicyText',
      'policyFileSchema',
      'sealEvent',
      'sha256Hex',
      'suggest',
      'tryParseCapabilities',
      'tryParseHostRule',
      'unmapIpv4',
      'verifyChain',
    ]);
  });

  it('@trust/core/node exports exactly these names', () => {
    expect(Object.keys(node).sort()).toEqual(['createJsonlAuditSink', 'readJsonlAudit', 'repairJsonlAudit']);
  });

  it('@trust/core/testing exports exactly these names', () => {
    expect(Object.keys(testing).sort()).toEqual(['createTestContext', 'createTestRequest', 'trustMatchers']);
  });

  it('freezes exported constants', () => {
    for (const value of [core.CAPABILITY_NAMES, core.CAPABILITY_RISKS, core.PRINCIPAL_KINDS, core.denyAll, core.CAPABILITY_ERROR_CODES, core.COMMON_PUBLIC_SUFFIXES]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
  });
});
