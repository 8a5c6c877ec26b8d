const INTEGER = /^-?[0-9]+$/;
const OPERATORS: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  '-eq': (a, b) => a === b,
  '-ne': (a, b) => a !== b,
  '-lt': (a, b) => a < b,
  '-le': (a, b) => a <= b,
  '-gt': (a, b) => a > b,
  '-ge': (a, b) => a >= b,
};

/**
 * The integer comparisons `test` and `[[ ]]` share. Returns `undefined` for any other operator;
 * an operand that is not an integer is an error built by `fail`.
 *
 * @example
 * compareIntegers('-lt', '2', '10', (t) => new Error(t)); // true
 */
export function compareIntegers(
  op: string | undefined,
  a: string,
  b: string,
  fail: (operand: string) => Error,
): boolean | undefined {
  const compare = op === undefined ? undefined : OPERATORS[op];
  if (!compare) return undefined;
  const n = (x: string) => {
    if (!INTEGER.test(x.trim())) throw fail(x);
    return Number(x);
  };
  return compare(n(a), n(b));
}
