/** A writable text stream, as much of one as the CLI needs. */
export interface TextSink {
  write(text: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
}

/**
 * Everything a command touches of the outside world. `createProcessIo()` gives the real one;
 * tests pass their own, so no command reads `process` directly.
 */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform: NodeJS.Platform;
  /** Aborted when the user interrupts (Ctrl-C); long-running commands stop cleanly on it. */
  readonly signal: AbortSignal;
}

/**
 * The process's own streams, environment and working directory, with an abort signal that fires
 * on SIGINT or SIGTERM. stdin and stderr are created on first use.
 *
 * @example
 * const io = createProcessIo(); io.stdout.write('hi\n');
 */
export function createProcessIo(): CliIo {
  const controller = new AbortController();
  const stop = () => {
    // A second Ctrl-C while shutting down ends the process at once.
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    stdout: process.stdout,
    // Getters: creating process.stdin (a TTY or pipe stream) costs milliseconds on every start,
    // and `trust --help` never reads it.
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    signal: controller.signal,
  };
}
