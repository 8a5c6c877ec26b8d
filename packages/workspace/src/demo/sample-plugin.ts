import { SAMPLE_COMPONENT_BASE64 } from './sample-plugin-component.js';

// The sample plugin of the demo and of `trust package init`: a component and its manifest.

/** The sample component's bytes (exports add(u32, u32) -> u32 and hello() -> string; no imports). */
export function sampleComponent(): Uint8Array {
  return new Uint8Array(Buffer.from(SAMPLE_COMPONENT_BASE64, 'base64'));
}

/** The package.toml of a new package around the sample component. */
export function sampleManifest(name: string): string {
  return [
    '# A trust plugin package. Capabilities are deny-all: list only what the plugin needs,',
    '# e.g. capabilities = ["env:LOG_LEVEL", "fs:ro:/srv/data", "http"]. Unknown keys are errors.',
    'format = 1',
    '',
    '[package]',
    `name = "${name}"`,
    'version = "0.1.0"',
    'interface = "trust:sample"',
    'interface_version = 1',
    '',
    '[wasm]',
    'component = "plugin.wasm"',
    'capabilities = []',
    '',
    '[metadata]',
    'description = "sample plugin: add(a, b) and hello()"',
    '',
  ].join('\n');
}
