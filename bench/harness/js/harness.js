#!/usr/bin/env node
// JavaScript harness of the mpk benchmark suite: msgpackr, @msgpack/msgpack, notepack.io,
// msgpack-lite, msgpack5, and on the W7 documents msgpack-js, msgpack-js-v5, what-the-pack,
// msgpack-unpack (versions pinned in package.json / package-lock.json); JSON and avsc (Avro)
// as baselines.
//
//   node harness.js --ref DIR --out FILE [--quick] [--only SUBSTR,...] [--list] [--bytes-dir DIR] [--profile FILE]
//   node harness.js --ref DIR --check-generators
//
// Generates every workload it can express exactly as docs/workloads.md defines it,
// verifies each implementation against mpk's reference encodings (written by mpk_gen) before
// timing it, then times it. Protocol and result format: docs/benchmark-suite.md.
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const msgpackr = require('msgpackr');
const msgpack = require('@msgpack/msgpack');
const notepack = require('notepack.io');
const lite = require('msgpack-lite');
// maxDepth: its default (100) refuses W4's nest(128), like @msgpack/msgpack's encoder below.
const msgpack5 = require('msgpack5')({ maxDepth: 1024 });
const { BufferList } = createRequire(require.resolve('msgpack5'))('bl');
// The other systems of msgpackr's report (W7 documents only): see EXTRA below.
const msgpackJs = require('msgpack-js');
const msgpackJsV5 = require('msgpack-js-v5');
const whatThePack = require('what-the-pack').initialize(2 ** 24); // its encode buffer (16 MiB): the large document fits
const msgpackUnpack = require('msgpack-unpack');
const avsc = require('avsc');

const LANGUAGE = 'JavaScript';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// --- data, exactly as docs/workloads.md defines it ----------------------------------------------

function smallFields(values) {
  const out = [];
  for (let i = 0; i < Math.floor(values / 8); i++) {
    out.push(i % 128, -(i % 1000) - 1, 40000 + (i % 1000), -100000 - i, 5000000000 + i,
      i + 0.25, 1.0 / (i + 3), 'field' + String(i % 1000).padStart(3, '0'));
  }
  return out;
}

function flatMaps(count) {
  const maps = [];
  for (let i = 0; i < count; i++) {
    const m = {};
    for (let j = 0; j < 16; j++) {
      const key = 'k' + String(j).padStart(2, '0');
      switch (j % 4) {
        case 0: m[key] = i * 16 + j; break;
        case 1: m[key] = i + (j + 0.5) / 16; break;
        case 2: m[key] = 'v' + String(i % 100); break;
        default: m[key] = (i + j) % 2 === 0;
      }
    }
    maps.push(m);
  }
  return maps;
}

const SORTS = ['pale', 'amber', 'dark', 'stout', 'porter'];
function beer(brand, alcohol, mapMode) {
  return mapMode ? { brand, alcohol, brewery: 'Brew Co', sort: [...SORTS] }
    : [brand, alcohol, 'Brew Co', [...SORTS]];
}

function typedObjects() {
  const d = {};
  d.int_array = Array.from({ length: 100 }, (_, k) => ((k * 7919) % 65536) - 1000);
  d.double_array = Array.from({ length: 100 }, (_, k) => k * 1.1 + 0.5);
  for (const [mode, mapMode] of [['map', true], ['array', false]]) {
    d['beer_' + mode] = beer('Ale Brewery Lager', 4.5, mapMode);
    d['beer_list_' + mode] = Array.from({ length: 10 }, (_, k) => beer('Ale ' + k, 4.5 + k / 4, mapMode));
  }
  return d;
}

function luaBench() {
  const d = { empty: [], iary1: [1], iary10: Array.from({ length: 10 }, (_, k) => k - 5) };
  for (const n of [100, 1000, 10000]) d['iary' + n] = Array.from({ length: n }, (_, k) => Math.floor(k + 1 - n / 2));
  d.dary1 = [1.5e35];
  for (const n of [10, 100, 1000]) d['dary' + n] = Array.from({ length: n }, (_, k) => 1.5e35 * (k + 1));
  d.str1 = ['a'];
  for (const n of [10, 100, 1000, 10000, 20000, 30000, 40000, 80000]) d['str' + n] = 'a'.repeat(n - 1) + 'b';
  return d;
}

// W2: every case writes max(1, min(1,000,000, total / size)) values of one size (mpk_gen).
const W2_TOTAL = (quick) => (quick ? 256 << 10 : 32 << 20);
const UTF8_UNIT = 'h\u00e9llo w\u00f6rld \u2713 ';
function utf8Text(n) { // UTF8_UNIT repeated, cut at the last whole character at or below n bytes
  let s = '';
  while (Buffer.byteLength(s + UTF8_UNIT) <= n) s += UTF8_UNIT;
  for (const ch of UTF8_UNIT) { if (Buffer.byteLength(s + ch) > n) break; s += ch; }
  return s;
}
function stringsBinary(quick) {
  const payloads = {
    ascii_8: alphabet(8), ascii_1k: alphabet(1024), ascii_64k: alphabet(65536), utf8_1k: utf8Text(1024),
    bin_1k: patternBin(1024), bin_1m: patternBin(1 << 20),
  };
  const out = {};
  for (const [k, v] of Object.entries(payloads)) {
    const size = typeof v === 'string' ? Buffer.byteLength(v) : v.length;
    out[k] = { payload: v, count: Math.max(1, Math.min(1000000, Math.floor(W2_TOTAL(quick) / size))) };
  }
  return out;
}

const NEST_DEPTHS = [1, 2, 4, 8, 16, 32, 64, 128];
function nest(n) {
  let v = [1, 2, 3];
  for (let k = 1; k < n; k++) v = [1, 2, 3, v];
  return v;
}

const STREAM_MESSAGE = ['tag', [[1440949922, { message: 'hi there' }]]];
const STREAM_COUNT = (quick) => (quick ? 20000 : 1000000);
const STREAM_CHUNK = 65536;

// W7 records, the plain-map lists: beer_list (W5, map mode) and map_list.
function recordsLists() {
  return {
    beer_list_maps: typedObjects().beer_list_map,
    map_list_maps: Array.from({ length: 32 }, (_, i) => ({ key: 'a'.repeat(i), value: 'a'.repeat(i), index: i })),
  };
}

const alphabet = (n) => ALPHABET.repeat(Math.ceil(n / ALPHABET.length)).slice(0, n);
function patternBin(n) {
  const b = Buffer.allocUnsafe(n);
  for (let k = 0; k < n; k++) b[k] = (k * 31 + 7) & 0xff;
  return b;
}

// notepack's benchmarks/data.js, reconstructed: see docs/benchmark-suite.md.
function mediumOrLarge(large) {
  const entries = large ? 1024 : 32;
  const doc = {
    unsigned: Array.from({ length: 53 }, (_, k) => 2 ** k),
    signed: Array.from({ length: 53 }, (_, k) => -(2 ** k)),
  };
  if (large) doc.bin = [patternBin(256), patternBin(65536), patternBin(1 << 20)];
  doc.str = ['abc', 'g'.repeat(32), 'h'.repeat(256)];
  doc.array = [[], [1, 2, 3], ['a', 'b', 'c'], [[1], [2], [3]]];
  const map = {};
  for (let i = 0; i < entries; i++) {
    map['a'.repeat(i)] = 'a'.repeat(i);
    map['b'.repeat(i)] = Buffer.from('b'.repeat(i));
  }
  doc.map = map;
  doc.nil = null;
  doc.bool = { true: true, false: false, both: [true, false] };
  doc.undefined = [null, true, false, null, null]; // undefined is written as nil
  return doc;
}

function documents() {
  return {
    tiny: { foo: 1, bar: 'abc' },
    small: {
      foo: 1, bar: [1, 2, 3, 4, 'abc', 'def'],
      foobar: {
        foo: true, bar: -2147483649,
        foobar: { foo: Buffer.from([1, 2, 3, 4, 5]), bar: 1.5, foobar: [true, false, 'abcdefghijkmonpqrstuvwxyz'] },
      },
    },
    medium: mediumOrLarge(false),
    large: mediumOrLarge(true),
    // msgpack-lite's test/example.json, reconstructed: see docs/benchmark-suite.md.
    example: {
      int0: 0, int1: 1, 'int1-': -1, int8: 255, 'int8-': -255, int16: 256, 'int16-': -256,
      int32: 65536, 'int32-': -65536, nil: null, true: true, false: false, float: 0.5,
      'float-': -0.5, string0: '', string1: 'A', string4: 'foobarbaz',
      string8: 'Omnes viae Romam ducunt.', string16: alphabet(641), array0: [], array1: ['foo'],
      array8: Array.from({ length: 21 }, (_, k) => 2 ** k), map0: {}, map1: { foo: 'bar' },
    },
  };
}

// Deep equality; binaries compare by bytes whatever their class (Buffer, Uint8Array, BufferList).
function isBytes(v) { return v instanceof Uint8Array || v instanceof BufferList; }
// A binary's bytes as a Buffer, without copying them (a BufferList's are joined).
const bytesOf = (v) => (v instanceof BufferList ? v.slice() : Buffer.from(v.buffer, v.byteOffset, v.byteLength));
function same(a, b) {
  if (isBytes(a) || isBytes(b)) {
    if (!isBytes(a) || !isBytes(b)) return false;
    return bytesOf(a).equals(bytesOf(b));
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let k = 0; k < a.length; k++) if (!same(a[k], b[k])) return false;
    return true;
  }
  if (a === null || b === null || a === undefined || b === undefined) return a == b; // nil
  // A 64-bit integer decoded as a BigInt (msgpackr's default, int64AsType 'bigint') is the
  // same value as the integral number of the data.
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const big = (x) => (typeof x === 'bigint' ? x : Number.isInteger(x) ? BigInt(x) : null);
    return big(a) !== null && big(a) === big(b);
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (let n = 0; n < ka.length; n++) if (ka[n] !== kb[n] || !same(a[ka[n]], b[ka[n]])) return false;
    return true;
  }
  return typeof a === typeof b && a === b;
}
function hasBytes(v) {
  if (isBytes(v)) return true;
  if (v && typeof v === 'object') return Object.values(v).some(hasBytes);
  return false;
}

// --- implementations ------------------------------------------------------------------------

function versionOf(pkg) {
  const dir = path.dirname(require.resolve(pkg));
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const p = path.join(d, 'package.json');
    if (fs.existsSync(p)) {
      const j = JSON.parse(fs.readFileSync(p, 'utf8'));
      if (j.name === pkg) return j.version;
    }
  }
  return 'unknown';
}

const packr = new msgpackr.Packr({ useRecords: false });
const unpackr = new msgpackr.Unpackr({ useRecords: false });
const unpackrCopy = new msgpackr.Unpackr({ useRecords: false, copyBuffers: true });
// maxDepth: its default (100) refuses W4's nest(128); the other limits stay the defaults.
const mmEncoder = new msgpack.Encoder({ maxDepth: 1024 });
const mmDecoder = new msgpack.Decoder();
const toBuf = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

// A stream of top-level values is written by encoding each value and appending its bytes to
// one growing output buffer (what writing to a file or socket costs), and read by handing
// each value to a callback without keeping it (what a consumer of a stream does). The first
// harness concatenated a million Buffers and collected a million values into an array: the
// garbage collector's work on a million live objects was most of what it measured (see
// docs/benchmark-suite.md, "JavaScript timings").
//
// Each implementation gets its own compiled copy of the loops (new Function), so that the
// call sites inside stay monomorphic: with one shared loop, V8's feedback for
// `encode(values[k])` mixes every implementation and the later ones run a slower, megamorphic call.
const WRITE_LOOP = `let out = Buffer.allocUnsafe(65536), pos = 0;
  for (let k = 0; k < values.length; k++) {
    const b = encode(values[k]);
    if (b.length > out.length - pos) {
      const o = Buffer.allocUnsafe(Math.max(out.length * 2, pos + b.length));
      out.copy(o, 0, 0, pos);
      out = o;
    }
    out.set(b, pos);
    pos += b.length;
  }
  return out.subarray(0, pos);`;
const makeStreamWriter = () => new Function('encode', 'values', WRITE_LOOP); // eslint-disable-line no-new-func
// A sink for chunks emitted by an encoding stream: appends them to one growing buffer.
const SINK = `let out = Buffer.allocUnsafe(65536), pos = 0;
  return { write(b) {
    if (b.length > out.length - pos) {
      const o = Buffer.allocUnsafe(Math.max(out.length * 2, pos + b.length));
      out.copy(o, 0, 0, pos);
      out = o;
    }
    out.set(b, pos);
    pos += b.length;
  }, bytes() { return out.subarray(0, pos); } };`;
const makeSink = () => new Function(SINK); // eslint-disable-line no-new-func

// W7 stream through a library's Node stream classes (they deliver synchronously): messages
// written to an encoding stream whose chunks go to one growing buffer; the bytes written to a
// decoding stream in 64 KiB chunks, each message handed to `cb`.
function nodeStreams(makeEncoder, makeDecoder) {
  const newSink = makeSink(); // compiled once per implementation
  return {
    encodeStream: (msg, count) => {
      const sink = newSink();
      const s = makeEncoder();
      s.on('data', sink.write);
      for (let k = 0; k < count; k++) s.write(msg);
      s.end();
      return sink.bytes();
    },
    decodeStream: (buf, cb) => {
      let n = 0;
      const s = makeDecoder();
      s.on('data', (v) => { cb(v); n++; });
      for (let p = 0; p < buf.length; p += STREAM_CHUNK) s.write(buf.subarray(p, p + STREAM_CHUNK));
      s.end();
      return n;
    },
  };
}

// name -> { version, encode(v) -> bytes, decode(buf), each(buf, cb) -> count (null: no
// multi-value decoder), encodeStream(msg, count) / decodeStream(buf) -> count: W7 stream }
const IMPLS = {
  msgpackr: {
    version: () => 'msgpackr ' + versionOf('msgpackr') + (hasExtract() ? '' : ' (pure JS, no msgpackr-extract)'),
    encode: (v) => packr.pack(v), decode: (b) => unpackr.unpack(b),
    each: new Function('unpackr', 'return (b, cb) => { let n = 0; unpackr.unpackMultiple(b, (v) => { cb(v); n++; }); return n; };')(unpackr), // eslint-disable-line no-new-func
    copyBinaries: (b, cb) => { let n = 0; unpackrCopy.unpackMultiple(b, (v) => { cb(v); n++; }); return n; },
    streamApi: 'PackrStream / UnpackrStream',
    ...nodeStreams(() => new msgpackr.PackrStream({ useRecords: false }), () => new msgpackr.UnpackrStream({ useRecords: false })),
  },
  '@msgpack/msgpack': {
    version: () => '@msgpack/msgpack ' + versionOf('@msgpack/msgpack'),
    encode: (v) => toBuf(mmEncoder.encode(v)), decode: (b) => mmDecoder.decode(b),
    // encodeSharedRef: a view of the encoder's buffer, valid until the next call (copied at once).
    encodeShared: (v) => mmEncoder.encodeSharedRef(v),
    each: new Function('dec', 'return (b, cb) => { let n = 0; for (const v of dec.decodeMulti(b)) { cb(v); n++; } return n; };')(mmDecoder), // eslint-disable-line no-new-func
    // Its stream decoders (decodeMultiStream...) are async only: the stream is the whole
    // buffer given to decodeMulti, and writing is encodeSharedRef per message into one buffer.
    streamApi: 'encodeSharedRef per message / decodeMulti (its stream decoders are async only)',
  },
  'notepack.io': {
    version: () => 'notepack.io ' + versionOf('notepack.io'),
    encode: (v) => notepack.encode(v), decode: (b) => notepack.decode(b), each: null,
    streamApi: 'encode per message (no multi-value decoder)',
  },
  'msgpack-lite': {
    version: () => 'msgpack-lite ' + versionOf('msgpack-lite'),
    encode: (v) => lite.encode(v), decode: (b) => lite.decode(b),
    each: (b, cb) => { let n = 0; const d = new lite.Decoder(); d.on('data', (v) => { cb(v); n++; }); d.decode(b); return n; },
    streamApi: 'createEncodeStream / createDecodeStream',
    ...nodeStreams(() => lite.createEncodeStream(), () => lite.createDecodeStream()),
  },
  msgpack5: {
    version: () => 'msgpack5 ' + versionOf('msgpack5'),
    encode: (v) => msgpack5.encode(v).slice(), decode: (b) => msgpack5.decode(b),
    each: (b, cb) => { let n = 0; const bl = new BufferList(b); while (bl.length > 0) { cb(msgpack5.decode(bl)); n++; } return n; },
    streamApi: 'encoder() / decoder() streams',
    ...nodeStreams(() => msgpack5.encoder(), () => msgpack5.decoder()),
  },
};
for (const m of Object.values(IMPLS)) {
  const write = makeStreamWriter();
  const enc = m.encodeShared || m.encode;
  m.writeAll = (values) => write(enc, values);
  if (!m.encodeStream) {
    m.encodeStream = (msg, count) => m.writeAll(new Array(count).fill(msg));
    m.decodeStream = m.each ? (buf, cb) => m.each(buf, cb) : null;
  }
}
// The remaining JavaScript systems of msgpackr's report, run on the W7 documents (and the
// records case's plain-map lists). Three of them predate parts of the current spec; what each
// cannot read is asked of the library at start-up (capabilities below), and the documents
// that need it have no cell for it (docs/benchmark-suite.md lists them).
const EXTRA = {
  'msgpack-js': { version: () => 'msgpack-js ' + versionOf('msgpack-js'), encode: (v) => msgpackJs.encode(v), decode: (b) => msgpackJs.decode(b) },
  'msgpack-js-v5': { version: () => 'msgpack-js-v5 ' + versionOf('msgpack-js-v5'), encode: (v) => msgpackJsV5.encode(v), decode: (b) => msgpackJsV5.decode(b) },
  'what-the-pack': { version: () => 'what-the-pack ' + versionOf('what-the-pack'), encode: (v) => Buffer.from(whatThePack.encode(v)), decode: (b) => whatThePack.decode(b) },
  'msgpack-unpack': { version: () => 'msgpack-unpack ' + versionOf('msgpack-unpack') + ' (a decoder only)', encode: null, decode: (b) => msgpackUnpack(b) },
};
const AVRO_IMPL = 'avsc';
// Avro's schema of a document, inferred by avsc's Type.forValue with numbers typed as
// int / long / double (its default infers -2147483649 as a float and loses it); null when
// the inferred schema cannot carry the document (a round trip changes it: e.g. example's
// map0 {} and map1 {foo: 'bar'} become one record type, so {} comes back as {foo: null}):
// that document has no avsc cell (docs/benchmark-suite.md).
const avroNumber = (v) => (typeof v !== 'number' ? undefined : avsc.Type.forSchema(!Number.isInteger(v) ? 'double'
  : v >= -2147483648 && v <= 2147483647 ? 'int' : 'long'));
// Weak: the cache must not keep a released case's data (or its types) alive.
const avroTypes = new WeakMap();
function avroType(v) {
  const cacheable = v !== null && typeof v === 'object';
  if (!cacheable || !avroTypes.has(v)) {
    let t = null;
    try { t = avsc.Type.forValue(v, { valueHook: avroNumber }); if (!same(t.fromBuffer(t.toBuffer(v)), v)) t = null; } catch (e) { t = null; }
    if (!cacheable) return t;
    avroTypes.set(v, t);
  }
  return avroTypes.get(v);
}
// What a decoder can read, asked of it: bin 8, str 8, uint 64 (each as a tiny value).
function capabilities(m) {
  const reads = (hex, ok) => { try { return ok(m.decode(Buffer.from(hex, 'hex'))); } catch (e) { return false; } };
  return {
    bin: reads('c40161', (v) => isBytes(v) && v.length === 1),
    str8: reads('d90161', (v) => v === 'a'),
    int64: reads('cf000000012a05f200', (v) => Number(v) === 5000000000) && reads('d3ffffffff7fffffff', (v) => Number(v) === -2147483649),
  };
}
// What a document needs of a decoder: binaries, strings of 32-255 bytes (str 8), integers
// beyond 32 bits (mpk writes them as uint 64 / int 64).
function needs(v, acc = { bin: false, str8: false, int64: false }) {
  if (isBytes(v)) acc.bin = true;
  else if (typeof v === 'string') { const n = Buffer.byteLength(v); if (n >= 32 && n <= 255) acc.str8 = true; } else if (typeof v === 'number') {
    if (Number.isInteger(v) && (v > 0xffffffff || v < -0x80000000)) acc.int64 = true;
  } else if (v && typeof v === 'object') Object.values(v).forEach((x) => needs(x, acc));
  return acc;
}
const WHY = { bin: 'it cannot read bin 8 (it predates the bin types)', str8: 'it cannot read str 8', int64: 'it cannot read uint 64 / int 64' };
function missing(m, v) {
  const caps = m.caps || (m.caps = capabilities(m));
  const need = needs(v);
  return Object.keys(WHY).filter((k) => need[k] && !caps[k]).map((k) => WHY[k]);
}
function hasExtract() {
  try { createRequire(require.resolve('msgpackr'))('msgpackr-extract'); return true; } catch (e) { return false; }
}
const JSON_IMPL = 'JSON-node';
const ignore = () => {};
// Whether `each` reads the bytes `b` to exactly the values of the array `expected`, in order:
// `same` on each value as it comes (none is kept: a million decoded values collected into an
// array cost more in the collector than the comparison), then the count. { ok, n: values read }.
function readsTo(each, b, expected) {
  let n = 0, ok = true;
  each(b, (v) => { if (ok && (n >= expected.length || !same(v, expected[n]))) ok = false; n++; });
  return { ok: ok && n === expected.length, n };
}
// readsTo of mpk's reference bytes, once per decoder and reference: the result is a function of
// the decoder, the bytes and the values, so a write cell whose bytes equal mpk's (the decoder
// would read those same bytes) and the read cells of the same decoder share one pass. Keyed
// weakly by the bytes: released with their section.
const refReads = new WeakMap();
function refReadsTo(each, ref, expected) {
  if (!refReads.has(ref)) refReads.set(ref, new Map());
  const byDecoder = refReads.get(ref);
  const hit = byDecoder.get(each);
  if (hit && hit.expected === expected) return hit.result;
  const result = readsTo(each, ref, expected);
  byDecoder.set(each, { expected, result });
  return result;
}

// What each decoder does with bytes that are not UTF-8, and whether its binaries are views
// into the input: asked of the library at start-up, so that the labels stay true.
function utf8Policy(m) {
  try { m.decode(Buffer.from([0xa2, 0xff, 0xfe])); return 'does not refuse invalid UTF-8'; } catch (e) { return 'refuses invalid UTF-8'; }
}
function binaryIsView(m) {
  const b = Buffer.alloc(64);
  b.set([0xc4, 3, 1, 2, 3]);
  const v = m.decode(b.subarray(0, 5));
  return v instanceof Uint8Array && v.buffer === b.buffer;
}

// --- cells ----------------------------------------------------------------------------------

// A case's data (generated values, mpk's bytes read from REF, values derived from them) is
// made on first use and belongs to the section of cells being declared when it was created
// (`section`). main releases a section's data once the last of its cases has been timed: kept
// for the whole run, the data of every earlier workload (2.25 GB after the W7 streams) made
// each later full collection cost seconds of CPU. A released value is made again, the same,
// if a later cell asked for it (none does: every section's cells are declared together).
let currentSection = null;
let setupNs = 0n; // --profile: time spent making section data (inside the phase that asked for it)
function section(name) { currentSection = { name, lazies: [] }; }
function lazy(fn) {
  let v; let done = false;
  const get = () => {
    if (!done) { const t0 = process.hrtime.bigint(); v = fn(); done = true; setupNs += process.hrtime.bigint() - t0; }
    return v;
  };
  get.release = () => { v = undefined; done = false; };
  if (currentSection) currentSection.lazies.push(get);
  return get;
}

function cells(refDir, quick) {
  const out = [];
  const values = quick ? 20000 : 1000000;
  const maps = quick ? 2000 : 100000;
  const ref = (w, c) => lazy(() => fs.readFileSync(path.join(refDir, w, c + '.msgpack')));
  const add = (workload, kase, impl, unit, units, op, verify) =>
    out.push({ workload, case: kase, impl, unit, units, op, verify, section: currentSection, id: `${workload}/${kase}/${impl}` });

  // The verdict on an encoder's bytes `mine` against mpk's `ref`: wrong when they do not read
  // back to the data (`readsBack(sameBytes)`), else the same or different bytes.
  const encodingVerdict = (state, mine, ref, readsBack, sameText = 'same bytes as mpk',
    wrongText = 'its own bytes do not decode to the data') => {
    const sameBytes = mine.equals(ref);
    if (!readsBack(sameBytes)) return ['wrong_values', wrongText, mine.length];
    if (sameBytes) return ['same_bytes', sameText, mine.length];
    state.encoded = mine;
    return ['different_bytes', '', mine.length];
  };
  const encodeCheck = (r, expected, encode, decode) => (state) => {
    const mine = encode();
    return encodingVerdict(state, mine, r(), () => same(decode(mine), expected()));
  };
  const decodeCheck = (r, expected, decode) => () =>
    (same(decode(r()), expected()) ? ['same_values', "decodes mpk's bytes to the same values", null]
      : ['wrong_values', "decodes mpk's bytes to other values", null]);

  // The multi-value cells (W1, W3, W2): the implementation's own multi-value decoder (notepack.io
  // has none: @msgpack/msgpack's) reads its bytes back, value by value against the data; bytes
  // equal to mpk's are read once per decoder (refReadsTo), as its read cell reads them.
  const eachOf = (impl) => impl.each || IMPLS['@msgpack/msgpack'].each;
  // Bytes equal to mpk's read back as mpk's do (one pass per decoder, refReadsTo).
  const readsBackAll = (each, mine, ref, expected) => (sameBytes) =>
    (sameBytes ? refReadsTo(each, ref, expected) : readsTo(each, mine, expected)).ok;
  const multiEncodeCheck = (r, expected, encode, each) => (state) => {
    const mine = encode();
    return encodingVerdict(state, mine, r(), readsBackAll(each, mine, r(), expected()));
  };
  const multiDecodeCheck = (r, expected, each) => () =>
    (refReadsTo(each, r(), expected()).ok ? ['same_values', "decodes mpk's bytes to the same values", null]
      : ['wrong_values', "decodes mpk's bytes to other values", null]);
  section('small_fields, flat_maps');
  const w1 = lazy(() => smallFields(values));
  const w1ref = ref('small_fields', 'stream');
  const w3 = lazy(() => flatMaps(maps));
  const w3ref = ref('flat_maps', 'stream');
  for (const [name, impl] of Object.entries(IMPLS)) {
    add('small_fields', 'write_implicit', name, 'field', values, () => impl.writeAll(w1()),
      multiEncodeCheck(w1ref, w1, () => impl.writeAll(w1()), eachOf(impl)));
    if (impl.each) {
      add('small_fields', 'read_generic', name, 'field', values, () => impl.each(w1ref(), ignore),
        multiDecodeCheck(w1ref, w1, impl.each));
    }
    add('flat_maps', 'write', name, 'map', maps, () => impl.writeAll(w3()),
      multiEncodeCheck(w3ref, w3, () => impl.writeAll(w3()), eachOf(impl)));
    if (impl.each) {
      add('flat_maps', 'read_dynamic', name, 'map', maps, () => impl.each(w3ref(), ignore),
        multiDecodeCheck(w3ref, w3, impl.each));
    }
  }

  // W2 strings_binary: streams of max(1, 32 MiB / size) values of one size.
  const w2 = stringsBinary(quick);
  for (const [dname, { payload, count }] of Object.entries(w2)) {
    section('strings_binary/' + dname);
    const r = ref('strings_binary', dname);
    const data = lazy(() => new Array(count).fill(payload));
    const text = typeof payload === 'string';
    for (const [name, impl] of Object.entries(IMPLS)) {
      add('strings_binary', dname + '_write', name, 'value', count, () => impl.writeAll(data()),
        multiEncodeCheck(r, data, () => impl.writeAll(data()), eachOf(impl)));
      if (!impl.each) continue;
      const readCheck = (each, how) => () => {
        const { ok, n } = refReadsTo(each, r(), data());
        return ok ? ['same_values', `decodes mpk's bytes to the same values (${how})`, null]
          : ['wrong_values', `decodes mpk's bytes to other values (${n} values)`, null];
      };
      if (text) {
        add('strings_binary', dname + '_read_copy', name, 'value', count, () => impl.each(r(), ignore),
          readCheck(impl.each, 'into JS strings; it ' + utf8Policy(impl)));
      } else if (binaryIsView(impl)) {
        // Zero-copy: binaries are views into the input. Labelled, and measured copying too.
        add('strings_binary', dname + '_read_view', name, 'value', count, () => impl.each(r(), ignore),
          readCheck(impl.each, 'zero-copy: each binary is a view into the input'));
        const copying = impl.copyBinaries
          || ((b, cb) => impl.each(b, (v) => cb(Uint8Array.prototype.slice.call(v))));
        add('strings_binary', dname + '_read_copy', name, 'value', count, () => copying(r(), ignore),
          readCheck(copying, impl.copyBinaries ? 'copied by the library (copyBuffers)' : 'each view copied into a new Uint8Array'));
      } else {
        add('strings_binary', dname + '_read_copy', name, 'value', count, () => impl.each(r(), ignore),
          readCheck(impl.each, 'each binary a copy'));
      }
    }
  }

  // `data` is a lazy of the section the caller opened.
  const perObject = (workload, data, encName, decName, extra = false) => {
    for (const name of Object.keys(data())) {
      const value = () => data()[name];
      const r = ref(workload, name);
      for (const [impl, m] of Object.entries(IMPLS)) {
        add(workload, `${encName}_${name}`, impl, 'op', 1, () => m.encode(value()),
          encodeCheck(r, value, () => m.encode(value()), m.decode));
        add(workload, `${decName}_${name}`, impl, 'op', 1, () => m.decode(r()), decodeCheck(r, value, m.decode));
      }
      for (const [impl, m] of extra ? Object.entries(EXTRA) : []) {
        if (missing(m, data()[name]).length) continue; // no cell: see EXTRA
        if (m.encode) {
          add(workload, `${encName}_${name}`, impl, 'op', 1, () => m.encode(value()),
            encodeCheck(r, value, () => m.encode(value()), m.decode));
        }
        add(workload, `${decName}_${name}`, impl, 'op', 1, () => m.decode(r()), decodeCheck(r, value, m.decode));
      }
      if (extra && avroType(data()[name])) {
        // Avro (schema-based, a baseline like JSON): the schema inferred from the value.
        const type = lazy(() => avroType(value()));
        const bytes = lazy(() => type().toBuffer(value()));
        const avroVerify = () => (same(type().fromBuffer(type().toBuffer(value())), value())
          ? ['same_values', 'Avro (schema inferred by Type.forValue; no MessagePack bytes to compare); round trip gives the same values', bytes().length]
          : ['wrong_values', 'Avro round trip changes the values', null]);
        add(workload, `${encName}_${name}`, AVRO_IMPL, 'op', 1, () => type().toBuffer(value()), avroVerify);
        add(workload, `${decName}_${name}`, AVRO_IMPL, 'op', 1, () => type().fromBuffer(bytes()), avroVerify);
      }
      if (!hasBytes(data()[name])) {
        const text = lazy(() => JSON.stringify(value()));
        const jsonVerify = () => (same(JSON.parse(JSON.stringify(value())), value())
          ? ['same_values', 'JSON text (no MessagePack bytes to compare); round trip gives the same values', Buffer.byteLength(text())]
          : ['wrong_values', 'JSON round trip changes the values', null]);
        add(workload, `${encName}_${name}`, JSON_IMPL, 'op', 1, () => JSON.stringify(value()), jsonVerify);
        add(workload, `${decName}_${name}`, JSON_IMPL, 'op', 1, () => JSON.parse(text()), jsonVerify);
      }
    }
  };
  section('typed_objects');
  perObject('typed_objects', lazy(typedObjects), 'serialize', 'deserialize');

  // W4 deep_nesting: one structure per operation, MessagePack and JSON.
  for (const n of NEST_DEPTHS) {
    section('deep_nesting/' + n);
    const value = lazy(() => nest(n));
    const r = ref('deep_nesting', 'nest_' + n);
    for (const [impl, m] of Object.entries(IMPLS)) {
      add('deep_nesting', 'build_' + n, impl, 'structure', 1, () => m.encode(value()),
        encodeCheck(r, value, () => m.encode(value()), m.decode));
      add('deep_nesting', 'dom_' + n, impl, 'structure', 1, () => m.decode(r()), decodeCheck(r, value, m.decode));
    }
    const text = lazy(() => JSON.stringify(value()));
    const jsonVerify = () => (same(JSON.parse(text()), value())
      ? ['same_values', 'JSON text (no MessagePack bytes to compare); round trip gives the same values', Buffer.byteLength(text())]
      : ['wrong_values', 'JSON round trip changes the values', null]);
    add('deep_nesting', 'build_' + n, JSON_IMPL, 'structure', 1, () => JSON.stringify(value()), jsonVerify);
    add('deep_nesting', 'dom_' + n, JSON_IMPL, 'structure', 1, () => JSON.parse(text()), jsonVerify);
  }

  section('lua_bench');
  const w6 = lazy(luaBench);
  for (const name of Object.keys(w6())) {
    const r = ref('lua_bench', name);
    for (const [impl, m] of Object.entries(IMPLS)) {
      add('lua_bench', name, impl, 'op', 1, () => m.decode(m.encode(w6()[name])), (state) => {
        const mine = m.encode(w6()[name]);
        if (!same(m.decode(r()), w6()[name])) return ['wrong_values', "decodes mpk's bytes to other values", mine.length];
        if (!same(m.decode(mine), w6()[name])) return ['wrong_values', 'its own bytes do not decode to the data', mine.length];
        if (mine.equals(r())) return ['same_bytes', "same bytes as mpk; decodes mpk's bytes to the same values", mine.length];
        state.encoded = mine;
        return ['different_bytes', '', mine.length];
      });
    }
  }
  section('documents');
  perObject('documents', lazy(documents), 'encode', 'decode', true);

  // W7 stream: messages written to and read from a stream; one message is the unit.
  section('documents/stream');
  const count = STREAM_COUNT(quick);
  const sref = ref('documents', 'stream');
  const messages = lazy(() => new Array(count).fill(STREAM_MESSAGE));
  for (const [name, impl] of Object.entries(IMPLS)) {
    // Its own stream's bytes are read back by msgpackr (any right decoder will do, and
    // msgpack5's stream decoder would add half a minute per check; bytes equal to mpk's are
    // read once for all: refReadsTo); decode_stream checks the implementation's own decoder:
    // its verification runs the timed operation, with a callback comparing each message.
    add('documents', 'encode_stream', name, 'op', count, () => impl.encodeStream(STREAM_MESSAGE, count), (state) => {
      const mine = impl.encodeStream(STREAM_MESSAGE, count);
      return encodingVerdict(state, mine, sref(), readsBackAll(IMPLS.msgpackr.each, mine, sref(), messages()),
        `same bytes as mpk (${impl.streamApi})`, 'its own stream does not read back to the messages');
    });
    if (impl.decodeStream) {
      add('documents', 'decode_stream', name, 'op', count, () => impl.decodeStream(sref(), ignore), () => {
        const { ok, n } = refReadsTo(impl.decodeStream, sref(), messages());
        return ok ? ['same_values', `reads mpk's stream to the same ${count} messages (${impl.streamApi}${impl.decodeStream === impl.each ? '' : ', fed in 64 KiB chunks'})`, null]
          : ['wrong_values', `reads mpk's stream to other messages (${n} messages)`, null];
      });
    }
  }

  // W7 records: every implementation runs the plain-map lists; msgpackr also its record
  // extension (useRecords). mpk's record bytes come from include/mpk/ext/records.hpp through
  // mpk_gen once it writes documents/<list>_records.msgpack; until then, values only.
  section('documents/records');
  const lists = lazy(recordsLists);
  perObject('documents', lists, 'encode', 'decode', true);
  for (const list of ['beer_list', 'map_list']) {
    const value = () => lists()[list + '_maps'];
    const refPath = path.join(refDir, 'documents', list + '_records.msgpack');
    const recPackr = new msgpackr.Packr({ useRecords: true });
    const recUnpackr = new msgpackr.Unpackr({ useRecords: true });
    const own = lazy(() => Buffer.from(recPackr.pack(value())));
    const hasRef = () => fs.existsSync(refPath);
    add('documents', `encode_${list}_records`, 'msgpackr', 'op', 1, () => recPackr.pack(value()), (state) => {
      const mine = Buffer.from(recPackr.pack(value()));
      if (!same(new msgpackr.Unpackr({ useRecords: true }).unpack(mine), value())) return ['wrong_values', 'its own bytes do not decode to the data', mine.length];
      if (!hasRef()) return ['same_values', "records (useRecords): its own bytes decode to the data; bytes not compared (mpk_gen writes no records reference yet)", mine.length];
      if (mine.equals(fs.readFileSync(refPath))) return ['same_bytes', 'same bytes as mpk (records)', mine.length];
      state.encoded = mine;
      return ['different_bytes', '', mine.length];
    });
    const input = () => (hasRef() ? fs.readFileSync(refPath) : own());
    const recInput = lazy(input);
    add('documents', `decode_${list}_records`, 'msgpackr', 'op', 1, () => recUnpackr.unpack(recInput()), () => (
      same(new msgpackr.Unpackr({ useRecords: true }).unpack(recInput()), value())
        ? ['same_values', hasRef() ? "decodes mpk's records bytes to the same values"
          : 'decodes its own records bytes to the same values (mpk_gen writes no records reference yet)', null]
        : ['wrong_values', 'decodes the records bytes to other values', null]));
  }
  currentSection = null;
  return out;
}

// --- timing ---------------------------------------------------------------------------------

// Warm-up: at least 0.1 s (0.01 s quick) and 3 calls (or 1 s), so that V8 has compiled the
// optimized code before timing (the first call of a loop over a million values runs ~2x
// slower). With --expose-gc (the runner passes it), a full collection before each repetition
// so that one repetition does not pay for the garbage of another, or of another cell.
// An operation lasting LONG_OP seconds or more (msgpack5's stream encoder: a million messages
// take over a minute on a busy machine) is timed 3 times instead of 5 (every harness does the
// same), so that the full run stays within its time.
const LONG_OP = 2;
let sink = 0;
const collectGarbage = typeof global.gc === 'function' ? global.gc : () => {};
// `verified`: seconds the verification took; it ran the operation (or its equivalent) once,
// so when it lasted LONG_OP or more, it was the warm-up.
// MPK_BENCH_SHORT=1 (the runner's default mode): shorter batches and warm-up, as many
// repetitions but for an operation of LONG_OP or more, which gets 2 (each is a single call of
// seconds: msgpack5 writes the W7 stream in ~19 s on an idle machine); one collection per
// round of a case's repetitions instead of one before each (below).
const SHORT = process.env.MPK_BENCH_SHORT === '1';
// Warms the operation up and sizes its batch: returns what timeRep needs, with the number of
// repetitions it gets.
function prepare(op, units, quick, verified = 0) {
  const [warm, target, reps] = quick ? [0.01, 0.02, 3] : SHORT ? [0.03, 0.05, 5] : [0.1, 0.25, 5];
  const warmCap = SHORT ? 0.2 : 1; // seconds: the warm-up ends after 3 calls or this
  // In the default mode an operation of 0.5 s or more counts as long (a 20-minute run).
  const longOp = SHORT ? 0.5 : LONG_OP;
  const longReps = (perCall) => (SHORT && perCall >= LONG_OP ? 2 : 3);
  if (verified >= longOp && !quick) return { op, units, batch: 1, reps: longReps(verified), samples: [] };
  const t0 = process.hrtime.bigint();
  let calls = 0;
  let elapsed;
  for (;;) {
    const r = op();
    sink += r === undefined ? 0 : 1;
    calls++;
    elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
    if (elapsed >= warm && (calls >= 3 || elapsed >= warmCap)) break;
  }
  const batch = Math.max(1, Math.floor(target / (elapsed / calls)));
  return { op, units, batch, reps: elapsed / calls >= longOp ? longReps(elapsed / calls) : reps, samples: [] }; // see LONG_OP
}

// One repetition: a batch of calls, in ns per unit, appended to t.samples; `collect`: after a
// full collection.
function timeRep(t, collect = true) {
  if (collect) gcTimed();
  const s = process.hrtime.bigint();
  for (let k = 0; k < t.batch; k++) { const r = t.op(); sink += r === undefined ? 0 : 1; }
  const e = process.hrtime.bigint();
  t.samples.push(Number(e - s) / (t.batch * t.units));
  t.repNs = (t.repNs || 0n) + (e - s);
}
// --profile: seconds spent in full collections.
let gcNs = 0n;
function gcTimed() { const s = process.hrtime.bigint(); collectGarbage(); gcNs += process.hrtime.bigint() - s; }

// The repetitions of the implementations of one case, interleaved (docs/benchmark-suite.md,
// "Interleaving"; as mpk_bench's suite::register_benchmarks): repetition k of every
// implementation before repetition k + 1 of any, the first implementation rotating (A B C,
// B C A, C A B...). An implementation with fewer repetitions (a long operation) drops out of
// the later rounds. In the default mode (SHORT) one full collection per round, before it,
// rather than before each repetition: with the data of every workload generated so far live
// (hundreds of MB, millions of objects), a full collection costs about as much as a ~0.05 s batch or more.
async function timeInterleaved(timings) {
  const n = timings.length;
  const rounds = Math.max(0, ...timings.map((t) => t.reps));
  for (let k = 0; k < rounds; k++) {
    if (SHORT) gcTimed();
    for (let j = 0; j < n; j++) {
      const t = timings[(k + j) % n];
      if (t.samples.length < t.reps) { timeRep(t, !SHORT); await settle(); }
    }
  }
}
// Lets the event loop run what the last operation left queued (process.nextTick callbacks),
// outside any timed region. A stream written synchronously (the W7 stream cells) queues work
// for each of its million writes; the harness never returned to the event loop, so that queue
// and everything it holds stayed live for the rest of the run: a full collection after
// msgpack5's encode_stream cost seconds (35 MB live per 200,000 messages written).
let settleNs = 0n; // --profile: seconds spent there
function settle() {
  const s = process.hrtime.bigint();
  return new Promise((resolve) => setImmediate(() => { settleNs += process.hrtime.bigint() - s; resolve(); }));
}

// [median, range %, repetitions] of the samples (the runner computes the robust spread from
// the samples themselves: the repetitions_ns column).
function summary(samples) {
  const v = [...samples].sort((a, b) => a - b);
  const n = v.length;
  const median = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return [median, median > 0 ? ((v[n - 1] - v[0]) / median) * 100 : 0, n];
}

const HEADER = 'workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,'
  + 'noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op,repetitions_ns';
const csvField = (s) => { s = String(s); return /[,"\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; };

function fnv1a64(buf) {
  let h = 0xcbf29ce484222325n;
  const p = 0x100000001b3n, mask = 0xffffffffffffffffn;
  for (const b of buf) h = ((h ^ BigInt(b)) * p) & mask;
  return h.toString(16).padStart(16, '0');
}

// Generator unit test. JavaScript numbers cannot say "this integral value is a double", so
// the cases whose data holds integral doubles are compared as values (decoding mpk's bytes);
// every other case is compared by digest of @msgpack/msgpack's encoding, which writes every
// value in its smallest form like mpk.
const INTEGRAL_DOUBLES = new Set(['typed_objects/double_array', 'typed_objects/beer_list_map', 'typed_objects/beer_list_array',
  'documents/beer_list_maps']);
function checkGenerators(refDir, quick) {
  const lines = fs.readFileSync(path.join(refDir, 'digests.csv'), 'utf8').trim().split('\n').slice(1);
  const docs = Object.assign(documents(), recordsLists());
  docs.stream = null; // below
  const nests = Object.fromEntries(NEST_DEPTHS.map((n) => ['nest_' + n, nest(n)]));
  const gens = { typed_objects: typedObjects(), lua_bench: luaBench(), documents: docs, deep_nesting: nests };
  const w2 = stringsBinary(quick);
  let bad = 0, checked = 0;
  for (const line of lines) {
    const [w, c, , h] = line.split(',');
    let data;
    if (w === 'small_fields') data = smallFields(quick ? 20000 : 1000000);
    else if (w === 'flat_maps') data = flatMaps(quick ? 2000 : 100000);
    else if (w === 'strings_binary' && w2[c]) data = new Array(w2[c].count).fill(w2[c].payload);
    else if (w === 'documents' && c === 'stream') data = new Array(STREAM_COUNT(quick)).fill(STREAM_MESSAGE);
    else if (gens[w] && c in gens[w]) data = gens[w][c];
    else if (w === 'documents' && c.endsWith('_records') && docs[c.replace(/_records$/, '_maps')]) {
      // msgpackr's record extension (useRecords) against mpk's records encoder.
      data = docs[c.replace(/_records$/, '_maps')];
      const mine = Buffer.from(new msgpackr.Packr({ useRecords: true }).pack(data));
      checked++;
      if (c === 'beer_list_records') { // integral doubles: values
        const ok = same(new msgpackr.Unpackr({ useRecords: true }).unpack(fs.readFileSync(path.join(refDir, w, c + '.msgpack'))), data);
        console.log(`${ok ? 'OK' : 'DIFF'} ${w}/${c} (values: integral doubles)`);
        if (!ok) bad++;
      } else if (fnv1a64(mine) !== h) { console.log(`DIFF ${w}/${c}: ${fnv1a64(mine)}, mpk ${h}`); bad++; } else console.log(`OK ${w}/${c} ${h}`);
      continue;
    }
    else { console.log(`MISSING ${w}/${c}: no generator`); bad++; continue; }
    checked++;
    const multi = w === 'small_fields' || w === 'flat_maps' || w === 'strings_binary' || c === 'stream';
    if (INTEGRAL_DOUBLES.has(`${w}/${c}`)) {
      const refBytes = fs.readFileSync(path.join(refDir, w, c + '.msgpack'));
      const ok = same(mmDecoder.decode(refBytes), data);
      console.log(`${ok ? 'OK' : 'DIFF'} ${w}/${c} (values: integral doubles)`);
      if (!ok) bad++;
      continue;
    }
    const enc = multi ? Buffer.concat(data.map((v) => toBuf(mmEncoder.encode(v)))) : toBuf(mmEncoder.encode(data));
    const got = fnv1a64(enc);
    if (got !== h) { console.log(`DIFF ${w}/${c}: ${got}, mpk ${h}`); bad++; } else console.log(`OK ${w}/${c} ${got}`);
  }
  console.log(`${checked} cases checked, ${bad} failed`);
  return bad ? 1 : 0;
}

async function main() {
  const args = process.argv.slice(2);
  const opt = { only: '' };
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === '--quick' || a === '--list' || a === '--check-generators') opt[a.slice(2)] = true;
    else if (['--ref', '--out', '--only', '--bytes-dir', '--profile'].includes(a)) opt[a.slice(2)] = args[++k];
    else { console.error(`harness.js: unknown option ${a}`); return 2; }
  }
  if (!opt.ref) { console.error('harness.js: --ref DIR is required'); return 2; }
  if (opt['check-generators']) return checkGenerators(opt.ref, !!opt.quick);
  const only = opt.only.split(',').filter(Boolean);
  const todo = cells(opt.ref, !!opt.quick).filter((c) => !only.length || only.some((s) => c.id.includes(s)));
  if (opt.list) { for (const c of todo) console.log(c.id); return 0; }
  const versions = Object.fromEntries(Object.entries(IMPLS).map(([n, m]) => [n, m.version() + ' / Node ' + process.version]));
  versions[JSON_IMPL] = 'JSON.stringify/parse / Node ' + process.version;
  for (const [n, m] of Object.entries(EXTRA)) versions[n] = m.version() + ' / Node ' + process.version;
  versions[AVRO_IMPL] = 'avsc ' + versionOf('avsc') + ' (Avro, schema-based: a baseline) / Node ' + process.version;
  const fd = fs.openSync(opt.out, 'w');
  // --profile FILE: seconds per phase of each cell (data made, verification without it,
  // warm-up, repetitions) and per case (its rounds of repetitions, their collections).
  const prof = opt.profile ? fs.openSync(opt.profile, 'w') : null;
  if (prof) fs.writeSync(prof, 'cell,setup_s,verify_s,warmup_s,reps_s,repetitions,batch,gc_s,queued_work_s\n');
  fs.writeSync(fd, HEADER + '\n');
  let failed = 0;
  // The cells of one case (workload/case), in the order listed: verified one by one, then
  // timed together, their repetitions interleaved.
  const groups = new Map();
  for (const c of todo) {
    const key = `${c.workload}/${c.case}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  // The section whose data is released after each group: after the last group holding one of
  // its cells (with --only, of the cells selected).
  const lastGroup = new Map();
  [...groups.values()].forEach((group, g) => { for (const c of group) if (c.section) lastGroup.set(c.section, g); });
  const releaseAfter = new Map();
  for (const [sec, g] of lastGroup) { if (!releaseAfter.has(g)) releaseAfter.set(g, []); releaseAfter.get(g).push(sec); }
  let g = -1;
  for (const group of groups.values()) {
    g++;
    const results = [];
    for (const c of group) {
      const state = {};
      let verdict, text, size;
      const setup0 = setupNs;
      const v0 = process.hrtime.bigint();
      try { [verdict, text, size] = c.verify(state); } catch (e) { [verdict, text, size] = ['error', `${e.name}: ${e.message}`, null]; }
      const verified = Number(process.hrtime.bigint() - v0) / 1e9;
      if (verdict === 'different_bytes' && opt['bytes-dir'] && state.encoded) {
        const rel = path.join(c.impl.replace('/', '_'), c.workload, c.case + '.msgpack');
        fs.mkdirSync(path.dirname(path.join(opt['bytes-dir'], rel)), { recursive: true });
        fs.writeFileSync(path.join(opt['bytes-dir'], rel), state.encoded);
        text = 'bytes:' + rel;
      }
      results.push({ c, verdict, text, size, verified, setup: Number(setupNs - setup0) / 1e9 });
      await settle();
    }
    const timed = results.filter((r) => ['same_bytes', 'different_bytes', 'same_values'].includes(r.verdict));
    for (const r of timed) {
      const p0 = process.hrtime.bigint();
      r.timing = prepare(r.c.op, r.c.units, !!opt.quick, r.verified);
      r.prepared = Number(process.hrtime.bigint() - p0) / 1e9;
      await settle();
    }
    const gc0 = gcNs;
    const t0 = process.hrtime.bigint();
    await timeInterleaved(timed.map((r) => r.timing));
    if (prof) {
      const total = Number(process.hrtime.bigint() - t0) / 1e9, gc = Number(gcNs - gc0) / 1e9;
      for (const r of results) {
        const reps = r.timing ? Number(r.timing.repNs || 0n) / 1e9 : 0;
        fs.writeSync(prof, [r.c.id, r.setup.toFixed(4), (r.verified - r.setup).toFixed(4), (r.prepared || 0).toFixed(4),
          reps.toFixed(4), r.timing ? r.timing.samples.length : 0, r.timing ? r.timing.batch : 0].map(csvField).join(',') + '\n');
      }
      fs.writeSync(prof, [`${group[0].workload}/${group[0].case}/(rounds: ${total.toFixed(3)} s)`, '', '', '', '', '', '', gc.toFixed(4)].map(csvField).join(',') + '\n');
    }
    for (const { c, verdict, text, size, timing } of results) {
      let median = '', spread = '', reps = '', noisy = '', samples = '';
      if (timing) {
        const [m, s, n] = summary(timing.samples);
        median = m.toFixed(4); spread = s.toFixed(2); reps = n; noisy = s > 5 ? 'yes' : 'no';
        samples = timing.samples.map((x) => x.toFixed(4)).join(' ');
      } else failed++;
      fs.writeSync(fd, [c.workload, c.case, c.impl, LANGUAGE, versions[c.impl], c.unit, median, spread, reps, noisy,
        verdict, text, size == null ? '' : size, '', '', samples].map(csvField).join(',') + '\n');
      console.log(`CELL ${c.id} ${verdict}`);
    }
    for (const sec of releaseAfter.get(g) || []) for (const get of sec.lazies) get.release();
  }
  fs.closeSync(fd);
  if (prof) { fs.writeSync(prof, `(event loop turns),,,,,,,,${(Number(settleNs) / 1e9).toFixed(4)}\n`); fs.closeSync(prof); }
  return failed ? 1 : 0;
}

main().then((code) => { process.exitCode = code; }, (e) => { console.error(e); process.exitCode = 1; });
