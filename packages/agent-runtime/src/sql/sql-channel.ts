import type { MessagePort } from 'node:worker_threads';
import {
  type CallChannel,
  type CallChannelBuffers,
  createCallChannelBuffers,
  openCallChannel,
  userWord,
} from '@trust/core/node';
import { MAX_FRAME_BYTES } from './sql-wire.js';

/**
 * The call channel between the host and an agent's SQL worker thread: core's shared-memory call
 * channel (`@trust/core/node`, frames `v1`, JSON or structured clone, larger messages over a
 * MessagePort taken with `receiveMessageOnPort`), with two words of its own. One request is in
 * flight per agent: the host queues the rest.
 *
 * User words: [0] writes sent (host), [1] writes finished, checkpoint included (worker): the
 * worker may hold the file's write lock while they differ.
 *
 * Codecs as on the process pipe (sql-wire.ts): JSON text for the usual message, V8's structured
 * clone for one that holds what JSON cannot carry exactly (blobs, NaN/±Infinity, -0). No message
 * over `MAX_FRAME_BYTES` crosses (`CHANNEL_MESSAGE_TOO_LARGE`), as on the pipe.
 */
export const WRITES_SENT = userWord(0);
export const WRITES_DONE = userWord(1);

export type SqlChannel = CallChannel;
export type SqlChannelBuffers = CallChannelBuffers;

export function createChannelBuffers(dataBytes: number): SqlChannelBuffers {
  return createCallChannelBuffers(dataBytes, 2);
}

export function openChannel(buffers: SqlChannelBuffers, port: MessagePort): SqlChannel {
  return openCallChannel(buffers, { overflow: port, maxMessageBytes: MAX_FRAME_BYTES });
}

/** The codec for a message: structured clone when it holds what JSON cannot carry exactly. */
export function codecOf(binary: boolean): 'json' | 'v8' {
  return binary ? 'v8' : 'json';
}
