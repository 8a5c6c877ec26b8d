import { describe, expect, it } from 'vitest';
import { parseCapabilities } from '@trust/core';
import { fixture } from '../test/helpers.js';
import { describeComponent, diffInterfaces, interfaceFromWit } from './component-info.js';
import { checkImports } from './import-requirements.js';

describe('describeComponent', () => {
  it('reads imports, exports and a stable interface hash from the component itself', async () => {
    const tiny = await describeComponent(fixture('tiny'));
    expect(tiny.imports).toEqual(['wasi:cli/environment@0.2.12', 'wasi:cli/exit@0.2.12']);
    expect(tiny.exports).toContain('add: func(a: u32, b: u32) -> u32');
    expect(tiny.interface.items.echo).toBe('echo: func(s: string) -> string');
    expect((await describeComponent(fixture('tiny'))).interface.hash).toBe(tiny.interface.hash);
  });

  it('names the functions that differ between two interfaces', async () => {
    const tiny = await describeComponent(fixture('tiny'));
    const mini = await describeComponent(fixture('mini'));
    expect(mini.interface.hash).not.toBe(tiny.interface.hash);
    const diffs = diffInterfaces(tiny.interface, mini.interface);
    expect(diffs).toEqual(
      expect.arrayContaining([expect.stringMatching(/^changed add:/), expect.stringMatching(/^missing echo/)]),
    );
    expect(diffs.some((d) => d.includes('noop'))).toBe(false);
  });

  it('ignores whitespace and comments, and hashes exported interface bodies', () => {
    const a = interfaceFromWit(
      'package a:b;\ninterface api { greet: func(n: string) -> string; }\nworld w { export a:b/api; }',
    );
    const b = interfaceFromWit(
      'package a:b;\n// doc\ninterface api {\n  greet: func(n:string)->string;\n}\nworld w {\n  export a:b/api;\n}',
    );
    expect(a.interface.hash).toBe(b.interface.hash);
    expect(a.interface.items['a:b/api#greet']).toBe('greet: func(n: string) -> string');
  });

  it('refuses bytes that are not a component', async () => {
    await expect(describeComponent(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))).rejects.toHaveTrustCode(
      'WASM_COMPONENT_INVALID',
    );
  });
});

describe('checkImports (fail closed)', () => {
  const imports = [
    'wasi:cli/environment@0.2.12',
    'wasi:http/outgoing-handler@0.2.12',
    'wasi:sockets/tcp@0.2.12',
    'acme:custom/api@1.0.0',
    'wasi:io/streams@0.3.0',
  ];
  it.each([
    // WASI present, zero grants: http and sockets link deny-all; only what trust lacks is refused
    [[], true, ['acme:custom/api@1.0.0', 'wasi:io/streams@0.3.0']],
    [[], false, ['acme:custom/api@1.0.0', 'wasi:io/streams@0.3.0']],
    [['http', 'tcp'], true, ['acme:custom/api@1.0.0', 'wasi:io/streams@0.3.0']],
    [
      ['http', 'tcp'],
      false,
      [
        'wasi:http/outgoing-handler@0.2.12',
        'wasi:sockets/tcp@0.2.12',
        'acme:custom/api@1.0.0',
        'wasi:io/streams@0.3.0',
      ],
    ],
    [['network'], false, ['acme:custom/api@1.0.0', 'wasi:io/streams@0.3.0']],
  ])('grants %j, policy %s -> unsatisfied %j', (caps, policy, unsatisfied) => {
    for (const c of checkImports(imports, parseCapabilities(caps), policy))
      if (c.providedBy === 'deny-all') expect(c.import).toMatch(/^wasi:(http\/outgoing-handler|sockets\/)/);
    expect(
      checkImports(imports, parseCapabilities(caps), policy)
        .filter((c) => !c.satisfied)
        .map((c) => c.import),
    ).toEqual(unsatisfied);
  });
});
