/** One row for the agent's logs. */
export interface McpLogRow {
  readonly level: 'info' | 'warn' | 'error';
  readonly origin: 'mcp';
  readonly event: string;
  readonly target: string;
  readonly message: string;
}

/**
 * Forwards a server's stderr to the agent's logs, bounded: text is batched into rows of at most
 * 4 KiB (flushed after 1 s), at most `budgetBytes` (default 64 KiB) a minute; what is over the
 * budget is dropped and counted in the next row. A flooding server cannot push other rows out.
 *
 * @example
 * const stderr = createStderrLog('vault', (row) => adf.logs.add(row));
 * transport.onStderr = stderr.write;
 */
export function createStderrLog(server: string, log: (row: McpLogRow) => void, budgetBytes = 64 * 1024) {
  const ROW = 4096;
  let pending = '';
  let windowStart = Date.now();
  let used = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '' && dropped === 0) return;
    const note = dropped > 0 ? ` [${dropped} bytes of stderr dropped: over ${budgetBytes} bytes a minute]` : '';
    dropped = 0;
    const message = pending + note;
    pending = '';
    try {
      log({ level: 'warn', origin: 'mcp', event: 'mcp.stderr', target: server, message });
    } catch {
      /* logging must not fail the server */
    }
  };
  return {
    write(text: string): void {
      const now = Date.now();
      if (now - windowStart >= 60_000) {
        windowStart = now;
        used = 0;
      }
      const room = Math.max(0, budgetBytes - used);
      const kept = text.length > room ? text.slice(0, room) : text;
      dropped += text.length - kept.length;
      used += kept.length;
      pending += kept;
      while (pending.length >= ROW) {
        const row = pending.slice(0, ROW);
        pending = pending.slice(ROW);
        const rest = pending;
        pending = row;
        flush();
        pending = rest;
      }
      if ((pending !== '' || dropped > 0) && timer === undefined) {
        timer = setTimeout(flush, 1000);
        timer.unref();
      }
    },
    flush,
  };
}
