import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerAndDrain } from './answer-and-drain.js';
import { MAX_MESSAGE_BYTES } from './message.js';
import type { LocalMesh } from './local-mesh.js';

/** Refusals about the request itself rather than the sender; every other refusal is a 403. */
const REFUSAL_STATUS: Readonly<Record<string, number>> = Object.freeze({
  INPUT_TOO_DEEP: 400,
  MESSAGE_MALFORMED: 400,
  MESSAGE_TOO_LARGE: 413,
});

/** The mesh inbox route: `POST /mesh/v1/inbox/<did>` with a JSON message body. */
export const MESH_INBOX_PREFIX = '/mesh/v1/inbox/';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Handles mesh deliveries from other runtimes. It needs no owner token: the message signature
 * is the credential, and the recipient's ingress decides. Returns false when the request is not
 * a mesh route, so a server can fall through to its other routes.
 */
export function handleMeshRequest(
  mesh: LocalMesh,
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes = MAX_MESSAGE_BYTES,
): boolean {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (!path.startsWith(MESH_INBOX_PREFIX)) return false;
  if (req.method !== 'POST') {
    send(res, 405, { error: { code: 'MESH_METHOD', message: 'deliver messages with POST' } });
    return true;
  }
  let did: string;
  try {
    did = decodeURIComponent(path.slice(MESH_INBOX_PREFIX.length));
  } catch {
    send(res, 400, {
      error: { code: 'CONTROL_PATH_INVALID', message: 'the DID in the path is not valid percent-encoding' },
    });
    return true;
  }
  const ingest = mesh.lookup(did);
  if (!ingest) {
    send(res, 404, { error: { code: 'MESH_NO_SUCH_AGENT', message: 'no agent with that DID here' } });
    return true;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let aborted = false;
  req.on('data', (c: Buffer) => {
    if (aborted) return;
    size += c.length;
    if (size > maxBytes) {
      aborted = true;
      chunks.length = 0;
      // Answer, read and discard the rest (bounded), then close: the sender reads the 413.
      answerAndDrain(req, () =>
        send(res, 413, { error: { code: 'MESSAGE_TOO_LARGE', message: `messages are limited to ${maxBytes} bytes` } }),
      );
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (aborted) return;
    ingest(Buffer.concat(chunks), { transport: 'http' }).then(
      (result) => {
        if (result.accepted) send(res, 202, { accepted: true, id: result.record.message.id });
        else
          send(res, REFUSAL_STATUS[result.decision.code] ?? 403, {
            error: { code: result.decision.code, message: result.decision.reason, hint: result.decision.hint },
          });
      },
      () => send(res, 500, { error: { code: 'MESH_INTERNAL', message: 'the message could not be processed' } }),
    );
  });
  return true;
}
