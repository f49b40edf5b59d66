// The ceiling of every ratio: a bare node:http server answering each request with a pre-serialized JSON body of
// the given size, after reading the request body. `node ceiling-server.mjs PORT BYTES [STATUS]`
import { createServer } from 'node:http';

const [port, bytes, status = '200'] = process.argv.slice(2).map(Number);
const filler = Math.max(0, bytes - '{"data":""}'.length);
const body = Buffer.from(bytes > 0 ? JSON.stringify({ data: 'x'.repeat(filler) }) : '');
const headers = bytes > 0 ? { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length } : { 'content-length': 0 };

createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, headers);
    res.end(body);
  });
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
