/** One server-sent event. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * Parses a text/event-stream body into events (WHATWG rules: `event:`, multi-line `data:`,
 * comments, CRLF). Bounded: a single event over `maxEventBytes` is an error.
 */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = 4 * 1024 * 1024,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buf = '';
  let event = '';
  let data: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      for (let nl = buf.search(/\r\n|\n|\r/); nl >= 0; nl = buf.search(/\r\n|\n|\r/)) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === '\r' && buf[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          size = 0;
          continue;
        }
        if (line.startsWith(':')) continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
        size += val.length;
        if (size > maxEventBytes) throw new Error(`server-sent event larger than ${maxEventBytes} bytes`);
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
      }
    }
    // WHATWG: an event not terminated by a blank line when the stream ends is discarded.
  } finally {
    reader.releaseLock();
  }
}
