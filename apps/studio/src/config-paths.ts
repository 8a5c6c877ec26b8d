// Helpers of the config form: the dot paths a value can be set at, and how typed text becomes a value.

/** Every leaf dot path of a config object (arrays and `tools` are leaves), sorted. */
export function configLeafPaths(config: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, prefix: string) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && prefix !== 'tools') {
      for (const [k, v] of Object.entries(value)) walk(v, prefix === '' ? k : `${prefix}.${k}`);
    } else if (prefix !== '') out.push(prefix);
  };
  walk(config, '');
  return out.sort();
}

/** JSON when the text parses as JSON (numbers, booleans, null, arrays, objects), else the text as a string. */
export function parseConfigValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
