/**
 * The names the studio may call on a loaded plugin: exactly the functions its component exports,
 * read from its own WIT (`Plugin.interface.items`). A top-level function `env-count` may be named
 * `env-count` or `envCount`; a function `item` of an exported interface `pkg:ns/iface@1.0.0` is
 * `iface.item`. Anything else (a property of the glue object, `constructor`, `add.call`) is not an
 * export and is never passed to the plugin.
 *
 * @example
 * callableNames({ add: 'add: func(a: u32, b: u32) -> u32' }); // Set { 'add' }
 */
export function callableNames(items: Readonly<Record<string, string>>): ReadonlySet<string> {
  const names = new Set<string>();
  const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
  for (const [key, wit] of Object.entries(items)) {
    if (!/^[^:]+:\s*(?:async\s+)?func\b/.test(wit)) continue;
    const hash = key.lastIndexOf('#');
    if (hash < 0) {
      names.add(key);
      names.add(camel(key));
      continue;
    }
    const iface = key.slice(0, hash).replace(/@[^/]*$/, '');
    const short = iface.slice(iface.lastIndexOf('/') + 1);
    const item = key.slice(hash + 1);
    for (const i of new Set([short, camel(short)]))
      for (const f of new Set([item, camel(item)])) names.add(`${i}.${f}`);
  }
  return names;
}
