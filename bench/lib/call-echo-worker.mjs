// A worker thread that echoes each call over core's shared-memory call channel, exactly as the
// SQL worker answers (same framing, same waits): the thread hop alone, with no SQL.
import { workerData } from 'node:worker_threads';
import { nextCall, openCallChannel, postReply } from '@trust/core/node';

const ch = openCallChannel(workerData.buffers, { overflow: workerData.port });
for (;;) postReply(ch, nextCall(ch), 'json');
