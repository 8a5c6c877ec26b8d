// mvdan-sh ships no types; the AST is mvdan/sh's Go structs seen through GopherJS.
declare module 'mvdan-sh' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const sh: { syntax: any };
  export default sh;
}
