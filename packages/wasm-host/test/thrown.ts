/** What `fn` throws, or the string 'no error' when it returns: for asserting on guest-facing errors. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return 'no error';
}
