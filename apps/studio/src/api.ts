import { parseSseFrames } from './sse';
import type { LiveEvent } from './types';

/** An error answer of the control API: `{ error: { code, message, hint } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'PATCH', path: string, body: unknown): Promise<T>;
  /** Reads the live event stream until `signal` aborts. */
  events(onEvent: (e: LiveEvent) => void, signal: AbortSignal): Promise<void>;
}

/** A client bound to one token. The token only ever travels in the Authorization header. */
export function createApi(token: string): Api {
  const headers = { authorization: `Bearer ${token}` };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const init: RequestInit = {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      credentials: 'omit',
      cache: 'no-store',
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`/api/v1${path}`, init);
    const json = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string; hint?: string } };
    if (!res.ok)
      throw new ApiError(
        res.status,
        json.error?.code ?? 'UNKNOWN',
        json.error?.message ?? res.statusText,
        json.error?.hint,
      );
    return json as T;
  };
  return {
    get: (path) => call('GET', path),
    send: (method, path, body) => call(method, path, body),
    // EventSource cannot send headers, so the stream is read with fetch and parsed here.
    async events(onEvent, signal) {
      const res = await fetch('/api/v1/events', { headers, signal, credentials: 'omit', cache: 'no-store' });
      if (!res.ok || res.body === null) throw new ApiError(res.status, 'STREAM', 'the event stream was refused');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const parsed = parseSseFrames(buf + value);
        buf = parsed.rest;
        parsed.events.forEach(onEvent);
      }
    },
  };
}
