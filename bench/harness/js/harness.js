#!/usr/bin/env node
// JavaScript harness of the mpk benchmark suite: msgpackr, @msgpack/msgpack, notepack.io,
// msgpack-lite, msgpack5 (versions pinned in package.json / package-lock.json) and JSON.
//
//   node harness.js --ref DIR --out FILE [--quick] [--only SUBSTR,...] [--list] [--bytes-dir DIR]
//   node harness.js --ref DIR --check-generators
//
// Generates every workload it can express exactly as ../shared/BENCHMARKS.md defines it,
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
const msgpack5 = require('msgpack5')();
const { BufferList } = createRequire(require.resolve('msgpack5'))('bl');

const LANGUAGE = 'JavaScript';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// --- data, exactly as BENCHMARKS.md defines it ----------------------------------------------

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
function same(a, b) {
  if (isBytes(a) || isBytes(b)) {
    if (!isBytes(a) || !isBytes(b)) return false;
    const x = Buffer.from(a instanceof BufferList ? a.slice() : a);
    const y = Buffer.from(b instanceof BufferList ? b.slice() : b);
    return x.equals(y);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, k) => same(x, b[k]));
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
    return ka.length === kb.length && ka.every((k, n) => k === kb[n] && same(a[k], b[k]));
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
const mmEncoder = new msgpack.Encoder();
const mmDecoder = new msgpack.Decoder();
const toBuf = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

// name -> { version, encode(v) -> Buffer, decode(buf), decodeMulti(buf) -> array | null }
const IMPLS = {
  msgpackr: {
    version: () => 'msgpackr ' + versionOf('msgpackr') + (hasExtract() ? '' : ' (pure JS, no msgpackr-extract)'),
    encode: (v) => packr.pack(v), decode: (b) => unpackr.unpack(b),
    decodeMulti: (b) => unpackr.unpackMultiple(b),
  },
  '@msgpack/msgpack': {
    version: () => '@msgpack/msgpack ' + versionOf('@msgpack/msgpack'),
    encode: (v) => toBuf(mmEncoder.encode(v)), decode: (b) => mmDecoder.decode(b),
    decodeMulti: (b) => Array.from(mmDecoder.decodeMulti(b)),
  },
  'notepack.io': {
    version: () => 'notepack.io ' + versionOf('notepack.io'),
    encode: (v) => notepack.encode(v), decode: (b) => notepack.decode(b), decodeMulti: null,
  },
  'msgpack-lite': {
    version: () => 'msgpack-lite ' + versionOf('msgpack-lite'),
    encode: (v) => lite.encode(v), decode: (b) => lite.decode(b),
    decodeMulti: (b) => { const out = []; const d = new lite.Decoder(); d.on('data', (v) => out.push(v)); d.decode(b); return out; },
  },
  msgpack5: {
    version: () => 'msgpack5 ' + versionOf('msgpack5'),
    encode: (v) => msgpack5.encode(v).slice(), decode: (b) => msgpack5.decode(b),
    decodeMulti: (b) => { const out = []; const bl = new BufferList(b); while (bl.length > 0) out.push(msgpack5.decode(bl)); return out; },
  },
};
function hasExtract() {
  try { createRequire(require.resolve('msgpackr'))('msgpackr-extract'); return true; } catch (e) { return false; }
}
const JSON_IMPL = 'JSON-node';

function streamEncode(impl, values) {
  const parts = new Array(values.length);
  for (let k = 0; k < values.length; k++) parts[k] = impl.encode(values[k]);
  return Buffer.concat(parts);
}

// --- cells ----------------------------------------------------------------------------------

function lazy(fn) { let v; let done = false; return () => { if (!done) { v = fn(); done = true; } return v; }; }

function cells(refDir, quick) {
  const out = [];
  const values = quick ? 20000 : 1000000;
  const maps = quick ? 2000 : 100000;
  const ref = (w, c) => lazy(() => fs.readFileSync(path.join(refDir, w, c + '.msgpack')));
  const add = (workload, kase, impl, unit, units, op, verify) =>
    out.push({ workload, case: kase, impl, unit, units, op, verify, id: `${workload}/${kase}/${impl}` });

  const encodeCheck = (r, expected, encode, decode) => (state) => {
    const mine = encode();
    if (!same(decode(mine), expected())) return ['wrong_values', 'its own bytes do not decode to the data', mine.length];
    if (mine.equals(r())) return ['same_bytes', 'same bytes as mpk', mine.length];
    state.encoded = mine;
    return ['different_bytes', '', mine.length];
  };
  const decodeCheck = (r, expected, decode) => () =>
    (same(decode(r()), expected()) ? ['same_values', "decodes mpk's bytes to the same values", null]
      : ['wrong_values', "decodes mpk's bytes to other values", null]);

  const w1 = lazy(() => smallFields(values));
  const w1ref = ref('small_fields', 'stream');
  const w3 = lazy(() => flatMaps(maps));
  const w3ref = ref('flat_maps', 'stream');
  for (const [name, impl] of Object.entries(IMPLS)) {
    add('small_fields', 'write_implicit', name, 'field', values, () => streamEncode(impl, w1()),
      encodeCheck(w1ref, w1, () => streamEncode(impl, w1()), (b) => (impl.decodeMulti || IMPLS['@msgpack/msgpack'].decodeMulti)(b)));
    if (impl.decodeMulti) {
      add('small_fields', 'read_generic', name, 'field', values, () => impl.decodeMulti(w1ref()),
        decodeCheck(w1ref, w1, impl.decodeMulti));
    }
    add('flat_maps', 'write', name, 'map', maps, () => streamEncode(impl, w3()),
      encodeCheck(w3ref, w3, () => streamEncode(impl, w3()), (b) => (impl.decodeMulti || IMPLS['@msgpack/msgpack'].decodeMulti)(b)));
    if (impl.decodeMulti) {
      add('flat_maps', 'read_dynamic', name, 'map', maps, () => impl.decodeMulti(w3ref()),
        decodeCheck(w3ref, w3, impl.decodeMulti));
    }
  }

  const perObject = (workload, data, encName, decName) => {
    for (const name of Object.keys(data())) {
      const value = () => data()[name];
      const r = ref(workload, name);
      for (const [impl, m] of Object.entries(IMPLS)) {
        add(workload, `${encName}_${name}`, impl, 'op', 1, () => m.encode(value()),
          encodeCheck(r, value, () => m.encode(value()), m.decode));
        add(workload, `${decName}_${name}`, impl, 'op', 1, () => m.decode(r()), decodeCheck(r, value, m.decode));
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
  perObject('typed_objects', lazy(typedObjects), 'serialize', 'deserialize');

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
  perObject('documents', lazy(documents), 'encode', 'decode');
  return out;
}

// --- timing ---------------------------------------------------------------------------------

let sink = 0;
function measure(op, units, quick) {
  const [warm, target, reps] = quick ? [0.01, 0.02, 3] : [0.1, 0.25, 5];
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  const t0 = now();
  let calls = 0;
  let elapsed;
  for (;;) {
    const r = op();
    sink += r === undefined ? 0 : 1;
    calls++;
    elapsed = now() - t0;
    if (elapsed >= warm) break;
  }
  const batch = Math.max(1, Math.floor(target / (elapsed / calls)));
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    const s = process.hrtime.bigint();
    for (let k = 0; k < batch; k++) { const r = op(); sink += r === undefined ? 0 : 1; }
    samples.push(Number(process.hrtime.bigint() - s) / (batch * units));
  }
  samples.sort((a, b) => a - b);
  const n = samples.length;
  const median = n % 2 ? samples[(n - 1) / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return [median, median > 0 ? ((samples[n - 1] - samples[0]) / median) * 100 : 0, n];
}

const HEADER = 'workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,'
  + 'noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op';
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
const INTEGRAL_DOUBLES = new Set(['typed_objects/double_array', 'typed_objects/beer_list_map', 'typed_objects/beer_list_array']);
function checkGenerators(refDir, quick) {
  const lines = fs.readFileSync(path.join(refDir, 'digests.csv'), 'utf8').trim().split('\n').slice(1);
  const gens = { typed_objects: typedObjects(), lua_bench: luaBench(), documents: documents() };
  let bad = 0, checked = 0;
  for (const line of lines) {
    const [w, c, , h] = line.split(',');
    let data;
    if (w === 'small_fields') data = smallFields(quick ? 20000 : 1000000);
    else if (w === 'flat_maps') data = flatMaps(quick ? 2000 : 100000);
    else if (gens[w] && c in gens[w]) data = gens[w][c];
    else { console.log(`MISSING ${w}/${c}: no generator`); bad++; continue; }
    checked++;
    const multi = w === 'small_fields' || w === 'flat_maps';
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

function main() {
  const args = process.argv.slice(2);
  const opt = { only: '' };
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === '--quick' || a === '--list' || a === '--check-generators') opt[a.slice(2)] = true;
    else if (['--ref', '--out', '--only', '--bytes-dir'].includes(a)) opt[a.slice(2)] = args[++k];
    else { console.error(`harness.js: unknown option ${a}`); return 2; }
  }
  if (!opt.ref) { console.error('harness.js: --ref DIR is required'); return 2; }
  if (opt['check-generators']) return checkGenerators(opt.ref, !!opt.quick);
  const only = opt.only.split(',').filter(Boolean);
  const todo = cells(opt.ref, !!opt.quick).filter((c) => !only.length || only.some((s) => c.id.includes(s)));
  if (opt.list) { for (const c of todo) console.log(c.id); return 0; }
  const versions = Object.fromEntries(Object.entries(IMPLS).map(([n, m]) => [n, m.version() + ' / Node ' + process.version]));
  versions[JSON_IMPL] = 'JSON.stringify/parse / Node ' + process.version;
  const fd = fs.openSync(opt.out, 'w');
  fs.writeSync(fd, HEADER + '\n');
  let failed = 0;
  for (const c of todo) {
    const state = {};
    let verdict, text, size;
    try { [verdict, text, size] = c.verify(state); } catch (e) { [verdict, text, size] = ['error', `${e.name}: ${e.message}`, null]; }
    if (verdict === 'different_bytes' && opt['bytes-dir'] && state.encoded) {
      const rel = path.join(c.impl.replace('/', '_'), c.workload, c.case + '.msgpack');
      fs.mkdirSync(path.dirname(path.join(opt['bytes-dir'], rel)), { recursive: true });
      fs.writeFileSync(path.join(opt['bytes-dir'], rel), state.encoded);
      text = 'bytes:' + rel;
    }
    let median = '', spread = '', reps = '', noisy = '';
    if (['same_bytes', 'different_bytes', 'same_values'].includes(verdict)) {
      const [m, s, n] = measure(c.op, c.units, !!opt.quick);
      median = m.toFixed(4); spread = s.toFixed(2); reps = n; noisy = s > 5 ? 'yes' : 'no';
    } else failed++;
    fs.writeSync(fd, [c.workload, c.case, c.impl, LANGUAGE, versions[c.impl], c.unit, median, spread, reps, noisy,
      verdict, text, size == null ? '' : size, '', ''].map(csvField).join(',') + '\n');
    console.log(`CELL ${c.id} ${verdict}`);
  }
  fs.closeSync(fd);
  return failed ? 1 : 0;
}

process.exitCode = main();
