// A loopback UDP echo peer in its own process: prints its port, then one JSON line per datagram,
// and answers each datagram with `echo:` + its bytes.
import { createSocket } from 'node:dgram';
const s = createSocket('udp4');
s.on('message', (msg, rinfo) => {
  process.stdout.write(`${JSON.stringify({ data: msg.toString('utf8') })}\n`);
  // the reply a connected guest socket receives
  s.send(Buffer.concat([Buffer.from('echo:'), msg]), rinfo.port, rinfo.address);
});
s.bind(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: s.address().port })}\n`));
process.on('disconnect', () => process.exit(0));
