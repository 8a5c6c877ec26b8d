import type { IncomingMessage } from 'node:http';

// How long a refused request's connection may linger while its answer is read (then it is dropped).
const REFUSAL_LINGER_MS = 2_000;

/**
 * Answers a request whose body is refused unread (413) without resetting the connection under
 * the client. Closing a socket with unread bytes makes the kernel send a reset, which often
 * destroys the answer before the client reads it; so the answer goes out as a normal keep-alive
 * response and the rest of the body is read and discarded, up to `maxDrainBytes` (default 8 MiB)
 * and `maxDrainMs` (default 2 s). Past either limit the connection is dropped. Once drained, the
 * connection is an ordinary idle keep-alive connection (closed after the keep-alive timeout).
 */
export function answerAndDrain(
  req: IncomingMessage,
  send: () => void,
  limits: { maxDrainBytes?: number; maxDrainMs?: number } = {},
): void {
  const maxBytes = limits.maxDrainBytes ?? 8 * 1024 * 1024;
  const socket = req.socket;
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), limits.maxDrainMs ?? REFUSAL_LINGER_MS);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) socket.destroy();
  });
  req.once('end', stop);
  socket.once('close', stop);
  if (req.readableEnded) stop();
  req.resume();
  send();
}
