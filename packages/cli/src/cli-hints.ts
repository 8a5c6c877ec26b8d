/**
 * Library hints speak the API (`add "10.0.0.5" to allowCidrs`, `add that public key to
 * trustedKeys`); a person at the terminal needs the flag that does it. Each entry rewrites one
 * known phrase into the CLI's words, naming the policy-file key too where a file can say it.
 * A hint that matches none is shown unchanged.
 */
const REWRITES: readonly (readonly [RegExp, string])[] = [
  [
    /use mode '([\w-]+)' or add "([^"]+)"(?: \(or its \/48\))? to allowCidrs/g,
    'pass --mode $1, or --allow-cidr $2 (in a policy file: "guard": {"allowCidrs": ["$2"]})',
  ],
  [
    /add "([^"]+)"( \(or its \/48\))? to allowCidrs/g,
    'pass --allow-cidr $1$2 (in a policy file: "guard": {"allowCidrs": ["$1"]})',
  ],
  [/remove "([^"]+)" from denyCidrs/g, 'drop --deny-cidr $1 (in a policy file: remove "$1" from guard.denyCidrs)'],
  [/add that public key to trustedKeys/g, 'pass its public key file with --trusted <key.pub>'],
  [
    /pass egress: <EgressPolicy> to createPluginHost\(\) or host\.load\(\)/g,
    'pass --policy <egress-policy.json> (the file format of `trust egress`; see `trust egress check --help`)',
  ],
  [/\btrustedKeys\b/g, '--trusted <key.pub>'],
];

/**
 * A hint in the CLI's words: API option names become the flags that set them.
 *
 * @example
 * cliHint('use mode \'allow-local\' or add "10.0.0.5" to allowCidrs to permit it');
 * // 'pass --mode allow-local, or --allow-cidr 10.0.0.5 (in a policy file: …) to permit it'
 */
export function cliHint(hint: string): string {
  let out = hint;
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement);
  return out;
}
