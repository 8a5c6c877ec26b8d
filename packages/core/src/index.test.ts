// Pins the public API of @trust/core and its subpaths: an API change is a visible diff here.
import { describe, expect, it } from 'vitest';
import * as core from './index.js';
import * as node from './node/index.js';
import * as testing from './testing/index.js';

describe('public API', () => {
  it('@trust/core exports exactly these names', () => {
    expect(Object.keys(core).sort()).toEqual([
      'AGENT_CODE_ERROR_CODES',
      'AGENT_LOOP_ERROR_CODES',
      'AGENT_MESSAGING_ERROR_CODES',
      'AGENT_STORE_ERROR_CODES',
      'AUDIT_ERROR_CODES',
      'CAPABILITY_ERROR_CODES',
      'CAPABILITY_NAMES',
      'CAPABILITY_RISKS',
      'CLI_ERROR_CODES',
      'COMMON_PUBLIC_SUFFIXES',
      'CORE_ERROR_CODES',
      'DEFAULT_MAX_JSON_DEPTH',
      'EGRESS_ERROR_CODES',
      'GENESIS_HASH',
      'POLICY_ERROR_CODES',
      'PRINCIPAL_KINDS',
      'SANDBOX_ERROR_CODES',
      'TRUST_ERROR_CODES',
      'TRUST_ERROR_CODE_AREAS',
      'TrustError',
      'WASM_ERROR_CODES',
      'allow',
      'allowHosts',
      'auditDecision',
      'canonicalJson',
      'chain',
      'checkJsonText',
      'checkJsonValue',
      'checkOptions',
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
      'isTrustErrorCode',
      'matchHostRule',
      'normalizeAbsolutePath',
      'notImplemented',
      'optionProblems',
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
    expect(Object.keys(node).sort()).toEqual([
      'CALL_CHANNEL_VERSION',
      'CALL_STATE',
      'CALL_WAIT_SLICE_MS',
      'MAX_SYNC_WAIT_MS',
      'awaitReply',
      'createCallChannelBuffers',
      'createJsonlAuditSink',
      'isReplyReady',
      'nextCall',
      'openCallChannel',
      'postCall',
      'postReply',
      'readJsonlAudit',
      'readReply',
      'repairJsonlAudit',
      'userWord',
      'waitForReply',
    ]);
  });

  it('@trust/core/testing exports exactly these names', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'createTestContext',
      'createTestRequest',
      'rejectionOf',
      'thrownBy',
      'trustMatchers',
    ]);
  });

  it('freezes exported constants', () => {
    for (const value of [
      core.CAPABILITY_NAMES,
      core.CAPABILITY_RISKS,
      core.PRINCIPAL_KINDS,
      core.denyAll,
      core.CAPABILITY_ERROR_CODES,
      core.COMMON_PUBLIC_SUFFIXES,
    ]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
  });
});
