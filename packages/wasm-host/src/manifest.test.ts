import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { normalizePackagePath, parseManifest } from './manifest.js';

const base = (wasm: string, pkg = 'name = "greeter"\nversion = "1.0.0"') => `[package]\n${pkg}\n\n[wasm]\n${wasm}\n`;

describe('parseManifest', () => {
  it('parses a valid manifest with capabilities, args and metadata', () => {
    const m = parseManifest(
      `format = 1\n${base(
        'component = "./dist/p.wasm"\ncapabilities = ["env:LOG_LEVEL", "fs:ro:/etc/certs"]\nargs = ["-v"]',
        'name = "greeter"\nversion = "1.0.0"\ninterface = "acme:greeter"\ninterface_version = 2',
      )}\n[metadata]\nowner = "a"\n`,
    );
    expect(m.component).toBe('dist/p.wasm');
    expect(m.capabilitySet.envNames).toEqual(['LOG_LEVEL']);
    expect(m.interfaceVersion).toBe(2);
    expect(m.args).toEqual(['-v']);
    expect(m.metadata).toEqual({ owner: 'a' });
  });

  it('names the line and column of a TOML syntax error', () => {
    const e = thrownBy(() => parseManifest('[package]\nname = "greeter"\nversion = 1.0.0\n')) as unknown as {
      code: string;
      message: string;
      hint: string;
    };
    expect(e.code).toBeTrustCode('WASM_MANIFEST_INVALID');
    expect(e.message).toMatch(/at line 3, column \d+: illegal character/);
    expect(e.hint).toMatch(/at line 3, column \d+/);
  });

  it('rejects a misspelt key with "did you mean" instead of silently meaning deny-all', () => {
    const e = thrownBy(() => parseManifest(base('component = "p.wasm"\ncapabilites = ["http"]')));
    expect(e.code).toBeTrustCode('WASM_MANIFEST_INVALID');
    expect(e.problems[0]).toMatchObject({
      code: expect.toBeTrustCode('WASM_MANIFEST_UNKNOWN_KEY'),
      path: 'wasm.capabilites',
      hint: 'did you mean "capabilities"?',
    });
  });

  it.each([['../x.wasm'], ['/abs/x.wasm'], ['a/../../x.wasm'], ['a\\\\x.wasm'], ['C:/x.wasm']])(
    'keeps the component inside the package: %s',
    (path) => {
      const e = thrownBy(() => parseManifest(base(`component = "${path}"`)));
      expect(e.problems.some((p) => p.code === 'WASM_PACKAGE_UNSAFE_PATH')).toBe(true);
    },
  );

  it.each([
    [['gpu'], 'WASM_CAPABILITY_UNKNOWN', 'CAPABILITY_UNKNOWN'],
    [['env'], 'WASM_CAPABILITY_INVALID', 'CAPABILITY_BARE_ENV'],
    [['fs'], 'WASM_CAPABILITY_INVALID', 'CAPABILITY_BARE_FS'],
    [['filesystem'], 'WASM_CAPABILITY_INVALID', 'CAPABILITY_BARE_FS'],
    [['tcp', 'network'], 'WASM_CAPABILITY_INVALID', 'CAPABILITY_TIER_CONFLICT'],
    [['udp', 'sockets'], 'WASM_CAPABILITY_INVALID', 'CAPABILITY_TIER_CONFLICT'],
  ])('rejects capabilities %j with %s', (caps, code, problem) => {
    const e = thrownBy(() => parseManifest(base(`component = "p.wasm"\ncapabilities = ${JSON.stringify(caps)}`)));
    expect(e.code).toBe(code);
    expect(e.problems.map((p) => p.code)).toContain(problem);
  });

  it('accepts tcp with udp, and network with sockets', () => {
    expect(parseManifest(base('component = "p.wasm"\ncapabilities = ["tcp", "udp"]')).capabilities).toEqual([
      'tcp',
      'udp',
    ]);
    expect(
      parseManifest(base('component = "p.wasm"\ncapabilities = ["network", "sockets"]')).capabilitySet.egressTier(),
    ).toBe('coarse');
  });

  it('reports every problem at once and rejects bad TOML', () => {
    const e = thrownBy(() => parseManifest('[package]\nnmae = "x"\n[wasm]\n'));
    expect(e.problems.map((p) => p.path)).toEqual(
      expect.arrayContaining(['package.nmae', 'package.name', 'package.version', 'wasm.component']),
    );
    expect(thrownBy(() => parseManifest('[package\n')).code).toBeTrustCode('WASM_MANIFEST_INVALID');
  });
});

describe('normalizePackagePath', () => {
  it.each([
    ['plugin.wasm', 'plugin.wasm'],
    ['./a//b/./c.wasm', 'a/b/c.wasm'],
    ['../a', undefined],
    ['/a', undefined],
    ['', undefined],
    ['a/\0', undefined],
  ])('%j -> %j', (input, out) => expect(normalizePackagePath(input)).toBe(out));
});
