import { describe, expect, it } from 'vitest';
import { cliHint } from './cli-hints.js';

describe('cliHint', () => {
  it.each([
    [
      `use mode 'allow-local' or add "10.0.0.5/32" to allowCidrs to permit it`,
      'pass --mode allow-local, or --allow-cidr 10.0.0.5/32 (in a policy ' +
        'file: "guard": {"allowCidrs": ["10.0.0.5/32"]}) to permit it',
    ],
    [
      'add "fd00::1/128" (or its /48) to allowCidrs to permit it',
      'pass --allow-cidr fd00::1/128 (or its /48) (in a policy file: ' +
        '"guard": {"allowCidrs": ["fd00::1/128"]}) to permit it',
    ],
    [
      'remove "10.0.0.0/8" from denyCidrs to permit it',
      'drop --deny-cidr 10.0.0.0/8 (in a policy file: remove "10.0.0.0/8" from guard.denyCidrs) to permit it',
    ],
    [
      'add that public key to trustedKeys if you trust its owner (trusted: none)',
      'pass its public key file with --trusted <key.pub> if you trust its owner (trusted: none)',
    ],
    [
      'pass egress: <EgressPolicy> to createPluginHost() or host.load(), or remove the capability',
      'pass --policy <egress-policy.json> (the file format of `trust egress`; see `trust egress check --help`), ' +
        'or remove the capability',
    ],
    [
      'add "api.example.com" to the allow list of policy:http.allow to permit it',
      'add "api.example.com" to the allow list of policy:http.allow to permit it',
    ],
  ])('%s', (hint, expected) => {
    expect(cliHint(hint)).toBe(expected);
  });
});
