// The JavaScript side of tests/interop/records_interop_test.cpp: the real msgpackr and
// @msgpack/msgpack from bench/harness/js/node_modules (NODE_PATH points there).
//
//   node records_peer.js produce DIR
//       Writes msgpackr's encodings of a fixed set of values, one pair of files per case:
//       CASE.rec (msgpackr's bytes: one message, or several in a row) and CASE.plain
//       (@msgpack/msgpack's plain encoding of the same messages, in a row), plus
//       CASE.structures (pack(structures)) for the shared-structures cases.
//   node records_peer.js check MODE RECORDS PLAIN [STRUCTURES]
//       Decodes RECORDS (mpk's output) with msgpackr in MODE (message, sequential, shared,
//       shared-get) and PLAIN with @msgpack/msgpack, and compares the messages: prints
//       "ok N" and exits 0 when all N are equal, else prints the first difference, exits 1.
'use strict';
const fs = require('fs');
const path = require('path');
const msgpackr = require('msgpackr');
const msgpack = require('@msgpack/msgpack');

// --- the values --------------------------------------------------------------------------

function integers() {
  return [0, 1, 63, 64, 100, 127, 128, 200, 255, 256, 65535, 65536, 2147483647, 4294967295,
          4294967296, 9007199254740991, -1, -32, -33, -128, -129, -32768, -32769, -2147483648,
          -2147483649, -9007199254740991];
}

function beerList() {
  const list = [];
  for (let k = 0; k < 10; k++)
    list.push({brand: 'Ale ' + k, alcohol: 4.5 + k / 4, brewery: 'Brew Co',
               sort: ['pale', 'amber', 'dark', 'stout', 'porter']});
  return list;
}

function shapes(n) {
  const list = [];
  for (let i = 0; i < n; i++) {
    const o = {};
    o['k' + i] = i;
    o['v' + (i % 7)] = 'x'.repeat(i % 40);
    list.push(o);
  }
  return list;
}

function mixed() {
  const wide = {};
  for (let i = 0; i < 20; i++) wide['field_' + i] = i * 3;
  return {
    ints: integers(),
    floats: [0.5, -1.25, 3.141592653589793, 1e300, -2.5e-300],
    text: ['', 'a', 'héllo wörld', '日本語のテキスト', '😀 emoji', 'x'.repeat(31), 'y'.repeat(32),
           'z'.repeat(300), 'w'.repeat(70000)],
    bins: [Buffer.from([]), Buffer.from([1, 2, 3, 255]), Buffer.alloc(300, 7)],
    flags: [true, false, null],
    nested: {a: {b: {c: {d: [1, {e: 'deep', n: 64}]}}}},
    empty: {},
    wide,
    beers: beerList(),
    same: [{x: 1, y: 2}, {x: 3, y: 4}, {x: 70, y: 200}, {y: 5, x: 6}],
  };
}

function messages() {
  return [mixed(), {beers: beerList()}, shapes(70), [{a: 1}, {a: 2, b: 3}, {a: 100}],
          {a: 1}, 42, 'plain string'];
}

// --- produce -----------------------------------------------------------------------------

function write(dir, name, recordBytes, msgs, structures) {
  fs.writeFileSync(path.join(dir, name + '.rec'), recordBytes);
  fs.writeFileSync(path.join(dir, name + '.plain'),
                   Buffer.concat(msgs.map(m => Buffer.from(msgpack.encode(m)))));
  if (structures) fs.writeFileSync(path.join(dir, name + '.structures'), msgpackr.pack(structures));
}

function produce(dir) {
  const msgs = messages();
  const all = [msgs];  // one message holding them all
  write(dir, 'pack', msgpackr.pack(msgs), all);
  write(dir, 'packr_default', new msgpackr.Packr().pack(msgs), all);
  write(dir, 'use_records', new msgpackr.Packr({useRecords: true}).pack(msgs), all);
  const perMessage = new msgpackr.Packr();
  write(dir, 'per_message', Buffer.concat(msgs.map(m => perMessage.pack(m))), msgs);
  const seq = new msgpackr.Packr({sequential: true});
  write(dir, 'sequential', Buffer.concat(msgs.map(m => seq.pack(m))), msgs);
  // Shared structures: new shapes become shared (written as ids, no definition), saved with
  // pack(structures). 32 at most by default (then own definitions), or 100 (two-byte ids).
  for (const max of [32, 100]) {
    const structures = [];
    const p = new msgpackr.Packr({structures, maxSharedStructures: max});
    const bytes = Buffer.concat(msgs.map(m => p.pack(m)));
    write(dir, 'structures_' + max, bytes, msgs, structures);
  }
  // PackrStream: sequential records through a stream.
  const stream = new msgpackr.PackrStream();
  const chunks = [];
  stream.on('data', c => chunks.push(c));
  stream.on('end', () => write(dir, 'packr_stream', Buffer.concat(chunks), msgs));
  for (const m of msgs) stream.write(m);
  stream.end();
}

// --- check -------------------------------------------------------------------------------

function normalize(v) {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  if (v instanceof Uint8Array) return {bin: Buffer.from(v).toString('hex')};
  if (Array.isArray(v)) return v.map(normalize);
  if (v instanceof Map) return {map: [...v.entries()].map(([k, x]) => [normalize(k), normalize(x)])};
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = normalize(v[k]);
    return o;
  }
  return v;
}

function check(mode, recordsFile, plainFile, structuresFile) {
  const rec = fs.readFileSync(recordsFile);
  const plain = fs.readFileSync(plainFile);
  let got;
  // One Unpackr, message after message (mpk's side file gives where each ends).
  const eachMessage = u => {
    const out = [];
    for (let at = 0; at < rec.length;) {
      const end = nextEnd(rec, at);
      out.push(u.unpack(rec.subarray(at, end)));
      at = end;
    }
    return out;
  };
  if (mode === 'message') {
    got = eachMessage(new msgpackr.Unpackr({useRecords: true}));  // each has its definitions
  } else if (mode === 'sequential') {
    got = new msgpackr.Unpackr({sequential: true}).unpackMultiple(rec);
  } else if (mode === 'shared' || mode === 'shared-get') {
    const structures = msgpackr.unpack(fs.readFileSync(structuresFile));
    const u = mode === 'shared' ? new msgpackr.Unpackr({structures})
                                : new msgpackr.Unpackr({getStructures: () => structures});
    got = eachMessage(u);
  } else {
    throw new Error('unknown mode ' + mode);
  }
  const want = [...msgpack.decodeMulti(plain)];
  if (got.length !== want.length) {
    console.log(`message count differs: msgpackr read ${got.length}, expected ${want.length}`);
    process.exit(1);
  }
  for (let i = 0; i < want.length; i++) {
    const a = JSON.stringify(normalize(got[i]));
    const b = JSON.stringify(normalize(want[i]));
    if (a !== b) {
      console.log(`message ${i} differs:\n msgpackr: ${a.slice(0, 600)}\n expected: ${b.slice(0, 600)}`);
      process.exit(1);
    }
  }
  console.log('ok ' + want.length);
}

// Message boundaries of a per-message records file: mpk writes a side file of end offsets.
let ends = null;
function nextEnd(buf, at) {
  if (ends === null) ends = JSON.parse(fs.readFileSync(process.argv[4] + '.ends', 'utf8'));
  for (const e of ends) if (e > at) return e;
  return buf.length;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'produce') produce(args[0]);
else if (cmd === 'check') check(args[0], args[1], args[2], args[3]);
else {
  console.error('usage: records_peer.js produce DIR | check MODE RECORDS PLAIN [STRUCTURES]');
  process.exit(2);
}
