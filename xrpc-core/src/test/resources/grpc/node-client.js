// Calls an XRpc provider with Node's stock gRPC library, its messages loaded from the .proto XRpc
// exported; prints one JSON line per step for GrpcOtherLanguagesTest to check.
// usage: node node-client.js PROTO_FILE HOST:PORT SERVICE_FULL_NAME
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const [protoFile, address, serviceName] = process.argv.slice(2);
const definition = loader.loadSync(protoFile, {keepCase: true, longs: String, enums: String, defaults: false});
const Service = grpc.loadPackageDefinition(definition);
const Client = serviceName.split('.').reduce((o, k) => o[k], Service);
const client = new Client(address, grpc.credentials.createInsecure());
const soon = () => Date.now() + 20000;
const out = (step, value) => console.log(JSON.stringify({step, ...value}));

function unary(method, request, options = {}, metadata = new grpc.Metadata()) {
  return new Promise((resolve) => {
    client[method](request, metadata, {deadline: soon(), ...options}, (err, value) => resolve({err, value}));
  });
}

(async () => {
  const got = await unary('get', {id: 4});
  out('get', {item: got.value, error: got.err && got.err.message});

  const failed = await unary('reserve', {sku: 'saffron', quantity: 50});
  out('reserve', {
    code: failed.err.code,
    details: failed.err.details,
    exception: failed.err.metadata.get('xrpc-exception')[0],
    statusDetails: failed.err.metadata.get('grpc-status-details-bin').length,
  });

  const late = await unary('slow', {millis: 3000}, {deadline: Date.now() + 200});
  out('slow', {code: late.err && late.err.code});

  const refused = await unary('secret', {});
  const token = new grpc.Metadata();
  token.set('authorization', 'Bearer good');
  const allowed = await unary('secret', {}, {}, token);
  out('secret', {refused: refused.err.code, value: allowed.value && allowed.value.value});

  const ids = [];
  await new Promise((resolve) => {
    const call = client.watch({count: 3}, {deadline: soon()});
    call.on('data', (item) => ids.push(item.id));
    call.on('error', (e) => { out('watch-error', {message: e.message}); resolve(); });
    call.on('end', resolve);
  });
  out('watch', {ids});

  const counted = await new Promise((resolve) => {
    const call = client.count({deadline: soon()}, (err, value) => resolve({err, value}));
    for (let i = 1; i <= 5; i++) call.write({id: i, sku: 'sku-' + i});
    call.end();
  });
  out('count', {value: counted.value && counted.value.value, error: counted.err && counted.err.message});

  const echoed = [];
  await new Promise((resolve) => {
    const call = client.echo({deadline: soon()});
    call.on('data', (m) => echoed.push(m.value));
    call.on('error', (e) => { out('echo-error', {message: e.message}); resolve(); });
    call.on('end', resolve);
    for (const w of ['tea', 'coffee']) call.write({value: w});
    call.end();
  });
  out('echo', {words: echoed});
  client.close();
})().catch((e) => { console.log(JSON.stringify({step: 'crash', message: String(e && e.stack || e)})); process.exit(1); });
