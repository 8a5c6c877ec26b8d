/**
 * Pairs each item of a list that carries no id with a React key built from its content. Repeats of
 * the same content get `#2`, `#3`, … so keys stay unique and still follow the content, not the position.
 */
export function withContentKeys<T>(items: readonly T[], content: (item: T) => string): { key: string; item: T }[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const base = content(item);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { key: n === 1 ? base : `${base}#${n}`, item };
  });
}
