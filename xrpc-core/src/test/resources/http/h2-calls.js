// Calls an XRpc provider over HTTP/2 with Node's own http2 client: N calls at once on one
// connection, each a JSON body; prints one line per answer: "<index> <status> <body>".
const http2 = require('http2');
const [url, path, count] = process.argv.slice(2);
const session = http2.connect(url);
session.on('error', e => { console.log('session error ' + e.message); process.exit(2); });
let left = Number(count);
for (let i = 0; i < Number(count); i++) {
  const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json' });
  let status = 0;
  let body = '';
  req.on('response', h => { status = h[':status']; });
  req.on('data', d => { body += d; });
  req.on('error', e => console.log(i + ' error ' + e.message));
  req.on('close', () => {
    console.log(i + ' ' + status + ' ' + body);
    if (--left === 0) session.close();
  });
  req.end(JSON.stringify(['tea', i]));
}
