import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * A synchronous call from a plugin's worker thread to the host's main thread. The guest's WASI
 * calls are synchronous, but the egress client is asynchronous and lives on the main thread
 * (it holds the policy, which cannot cross threads). The worker posts the request on a
 * dedicated port and blocks in `Atomics.wait`; the main thread answers asynchronously, posts the
 * reply, then flips the flag and notifies; the worker reads the reply with
 * `receiveMessageOnPort`. The main thread is never the one blocked, so host-side network I/O
 * never runs on a thread the guest blocks.
 */
export type SyncCall = (op: string, payload: unknown) => unknown;

/** Worker side. */
export function createSyncCaller(port: MessagePort, flagBuffer: SharedArrayBuffer): SyncCall {
  const flag = new Int32Array(flagBuffer);
  return (op, payload) => {
    Atomics.store(flag, 0, 0);
    port.postMessage({ op, payload });
    Atomics.wait(flag, 0, 0);
    const msg = receiveMessageOnPort(port);
    if (!msg) throw new Error('bridge: woke without a reply');
    return msg.message;
  };
}

/** Main-thread side: answers each request with `handler`; errors become `{ bridgeError }`. */
export function serveSyncCalls(
  port: MessagePort,
  flagBuffer: SharedArrayBuffer,
  handler: (op: string, payload: unknown) => Promise<unknown>,
): void {
  const flag = new Int32Array(flagBuffer);
  port.on('message', (msg: { op: string; payload: unknown }) => {
    void handler(msg.op, msg.payload)
      .catch((e: unknown) => ({ bridgeError: String((e as Error)?.message ?? e) }))
      .then((reply) => {
        port.postMessage(reply);
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
      });
  });
}
