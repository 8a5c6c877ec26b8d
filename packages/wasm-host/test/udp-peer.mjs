// A loopback UDP receiver in its own process: prints its port, then one JSON line per datagram.
import { createSocket } from 'node:dgram';
const s = createSocket('udp4');
s.on('message', (msg) => process.stdout.write(`${JSON.stringify({ data: msg.toString('utf8') })}\n`));
s.bind(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: s.address().port })}\n`));
process.on('disconnect', () => process.exit(0));
