/**
 * The peer's child-process side. It listens on loopback only: an HTTP server (with routes and a
 * WebSocket echo on upgrade) and a raw TCP echo server. It is started by `startPeer` with `fork`.
 */
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { PeerCommand, PeerMessage, PeerRequest, PeerRoute, PeerStartOptions } from './peer-protocol.js';

const options = JSON.parse(process.argv[2] ?? '{}') as PeerStartOptions;
const host = options.host ?? '127.0.0.1';
const routes = new Map<string, PeerRoute>(Object.entries(options.routes ?? {}));
const requests: PeerRequest[] = [];
const stats = { httpConnections: 0, tcpConnections: 0, wsHandshakes: 0, udpMessages: [] as string[] };

function send(message: PeerMessage): void {
  process.send?.(message);
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    const value = req.rawHeaders[i + 1] ?? '';
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}

function pathnameOf(target: string): string {
  try {
    return new URL(target, 'http://peer.invalid').pathname;
  } catch {
    return target;
  }
}

function answer(route: PeerRoute | undefined, record: PeerRequest, res: ServerResponse): void {
  const socket = res.socket;
  if (route === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route for ${pathnameOf(record.path)}`);
    return;
  }
  switch (route.kind) {
    case 'echo':
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(record));
      return;
    case 'json':
      res
        .writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers })
        .end(JSON.stringify(route.body));
      return;
    case 'text':
      res.writeHead(route.status ?? 200, { 'content-type': 'text/plain', ...route.headers }).end(route.body);
      return;
    case 'redirect':
      res.writeHead(route.status, { location: route.location, 'content-length': '0' }).end();
      return;
    case 'stall':
      return;
    case 'slow-headers': {
      if (socket === null) return;
      socket.write('HTTP/1.1 200 OK\r\n');
      let n = 0;
      const timer = setInterval(() => socket.write(`x-slow-${n++}: 1\r\n`), route.intervalMs);
      socket.on('close', () => clearInterval(timer));
      return;
    }
    case 'slow-body': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x');
      const timer = setInterval(() => res.write('x'), route.intervalMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'huge-body': {
      const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
      if (route.declareLength) headers['content-length'] = String(route.bytes);
      res.writeHead(200, headers);
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      let left = route.bytes;
      const pump = (): void => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          if (!res.write(piece)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      pump();
      return;
    }
    case 'huge-headers':
      res.writeHead(200, { 'x-huge': 'h'.repeat(route.bytes), 'content-length': '2' }).end('ok');
      return;
  }
}

const http = createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const record: PeerRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: headerRecord(req),
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(record);
    answer(routes.get(pathnameOf(record.path)), record, res);
  });
});
http.on('connection', () => stats.httpConnections++);
http.on('clientError', (_err, socket) => socket.destroy());

// Minimal RFC 6455 echo: completes the handshake, sends "hello", echoes text frames, honours close.
http.on('upgrade', (req: IncomingMessage, socket: Socket) => {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string') return void socket.destroy();
  requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: headerRecord(req), body: '' });
  stats.wsHandshakes++;
  const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  const protocol = req.headers['sec-websocket-protocol'];
  const chosen = typeof protocol === 'string' ? `Sec-WebSocket-Protocol: ${protocol.split(',')[0]!.trim()}\r\n` : '';
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\n' +
      'Upgrade: websocket\r\n' +
      'Connection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n${chosen}\r\n`,
  );
  const frame = (opcode: number, payload: Buffer): Buffer => {
    if (payload.length >= 126) throw new Error('peer ws frames are small');
    return Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
  };
  socket.write(frame(1, Buffer.from('hello')));
  let buf = Buffer.alloc(0);
  socket.on('data', (data: Buffer) => {
    buf = Buffer.concat([buf, data]);
    while (buf.length >= 6) {
      const opcode = buf[0]! & 0x0f;
      const len = buf[1]! & 0x7f;
      if (len >= 126 || buf.length < 6 + len) return;
      const mask = buf.subarray(2, 6);
      const payload = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ mask[i % 4]!));
      buf = buf.subarray(6 + len);
      if (opcode === 8) {
        socket.end(frame(8, payload));
        return;
      }
      if (opcode === 1) socket.write(frame(1, payload));
    }
  });
  socket.on('error', () => socket.destroy());
});

const tcp = createTcpServer((socket) => {
  stats.tcpConnections++;
  socket.on('error', () => socket.destroy());
  socket.pipe(socket);
});

const udp = createSocket(host === '::1' ? 'udp6' : 'udp4');
udp.on('message', (msg, rinfo) => {
  stats.udpMessages.push(msg.toString('utf8'));
  udp.send(msg, rinfo.port, rinfo.address);
});

process.on('message', (raw: unknown) => {
  const cmd = raw as PeerCommand;
  const reply = (value?: unknown): void => send({ type: 'reply', id: cmd.id, value });
  switch (cmd.op) {
    case 'route':
      routes.set(cmd.path, cmd.route);
      return reply(true);
    case 'requests':
      return reply(requests);
    case 'clear':
      requests.length = 0;
      return reply(true);
    case 'stats':
      return reply(stats);
    default:
      send({ type: 'reply', id: (cmd as { id: number }).id, error: 'unknown op' });
  }
});
// The parent going away ends the peer: no orphaned listeners.
process.on('disconnect', () => process.exit(0));

http.listen(0, host, () => {
  tcp.listen(0, host, () =>
    udp.bind(0, host, () => {
      send({
        type: 'ready',
        v: 1,
        host,
        httpPort: (http.address() as AddressInfo).port,
        tcpPort: (tcp.address() as AddressInfo).port,
        udpPort: udp.address().port,
      });
    }),
  );
});
