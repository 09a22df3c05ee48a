// The ceiling for bench/media: one file served with single byte ranges by a bare Node HTTP
// handler and fs.createReadStream, with no auth, signature check, database lookup or headers
// beyond what a range needs.
import fs from 'node:fs';
import http from 'node:http';

const file = process.env.BENCH_FILE!;
const size = fs.statSync(file).size;

const server = http.createServer((req, res) => {
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!m) {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
    fs.createReadStream(file).pipe(res);
    return;
  }
  const start = Number(m[1]);
  const end = Math.min(m[2] ? Number(m[2]) : size - 1, size - 1);
  res.writeHead(206, {
    'content-type': 'video/mp4',
    'content-length': end - start + 1,
    'content-range': `bytes ${start}-${end}/${size}`,
  });
  fs.createReadStream(file, { start, end }).pipe(res);
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
