#!/usr/bin/env ruby
# frozen_string_literal: true

# Ruby harness of the mpk benchmark suite: msgpack (Debian ruby-msgpack) and json.
#
#   ruby harness.rb --ref DIR --out FILE [--quick] [--only SUBSTR,...] [--list] [--bytes-dir DIR]
#   ruby harness.rb --ref DIR --check-generators [--quick]
#
# Generates every workload it can express exactly as docs/workloads.md defines it,
# verifies each implementation against mpk's reference encodings (written by mpk_gen) before
# timing it, then times it. Objects allocated per operation come from
# GC.stat(:total_allocated_objects). Protocol and result format: docs/benchmark-suite.md.
require 'msgpack'
require 'json'
require 'fileutils'
require 'stringio'

LANGUAGE = 'Ruby'
ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

# --- data, exactly as docs/workloads.md defines it ----------------------------------------------

def small_fields(values)
  out = []
  (values / 8).times do |i|
    out.push(i % 128, -(i % 1000) - 1, 40_000 + i % 1000, -100_000 - i, 5_000_000_000 + i,
             i + 0.25, 1.0 / (i + 3), format('field%03d', i % 1000))
  end
  out
end

def flat_maps(count)
  Array.new(count) do |i|
    m = {}
    16.times do |j|
      m[format('k%02d', j)] = case j % 4
                              when 0 then i * 16 + j
                              when 1 then i + (j + 0.5) / 16
                              when 2 then "v#{i % 100}"
                              else (i + j).even?
                              end
    end
    m
  end
end

SORTS = %w[pale amber dark stout porter].freeze
def beer(brand, alcohol, map_mode)
  return { 'brand' => brand, 'alcohol' => alcohol, 'brewery' => 'Brew Co', 'sort' => SORTS.dup } if map_mode

  [brand, alcohol, 'Brew Co', SORTS.dup]
end

def typed_objects
  d = { 'int_array' => Array.new(100) { |k| (k * 7919) % 65_536 - 1000 },
        'double_array' => Array.new(100) { |k| k * 1.1 + 0.5 } }
  [['map', true], ['array', false]].each do |mode, map_mode|
    d["beer_#{mode}"] = beer('Ale Brewery Lager', 4.5, map_mode)
    d["beer_list_#{mode}"] = Array.new(10) { |k| beer("Ale #{k}", 4.5 + k / 4.0, map_mode) }
  end
  d
end

def lua_bench
  d = { 'empty' => [], 'iary1' => [1], 'iary10' => (-5..4).to_a }
  [100, 1000, 10_000].each { |n| d["iary#{n}"] = (1..n).map { |i| i - n / 2 } }
  d['dary1'] = [1.5e35]
  [10, 100, 1000].each { |n| d["dary#{n}"] = (1..n).map { |i| 1.5e35 * i } }
  d['str1'] = ['a']
  [10, 100, 1000, 10_000, 20_000, 30_000, 40_000, 80_000].each { |n| d["str#{n}"] = "#{'a' * (n - 1)}b" }
  d
end

def alphabet(n) = (ALPHABET * (n / ALPHABET.size + 1))[0, n]
def pattern_bin(n) = Array.new(n) { |k| (k * 31 + 7) & 0xff }.pack('C*')

# W2: every case writes max(1, min(1,000,000, total / size)) values of one size (mpk_gen).
def w2_total(quick) = quick ? 256 << 10 : 32 << 20
UTF8_UNIT = "h\u00e9llo w\u00f6rld \u2713 "

# UTF8_UNIT repeated, cut at the last whole character at or below n bytes.
def utf8_text(n)
  s = +''
  s << UTF8_UNIT while s.bytesize + UTF8_UNIT.bytesize <= n
  UTF8_UNIT.each_char do |ch|
    break if s.bytesize + ch.bytesize > n

    s << ch
  end
  s
end

def strings_binary(quick)
  payloads = { 'ascii_8' => alphabet(8), 'ascii_1k' => alphabet(1024), 'ascii_64k' => alphabet(65_536),
               'utf8_1k' => utf8_text(1024), 'bin_1k' => pattern_bin(1024), 'bin_1m' => pattern_bin(1 << 20) }
  payloads.transform_values { |v| [v, [1, [1_000_000, w2_total(quick) / v.bytesize].min].max] }
end

NEST_DEPTHS = [1, 2, 4, 8, 16, 32, 64, 128].freeze
def nest(n)
  v = [1, 2, 3]
  (n - 1).times { v = [1, 2, 3, v] }
  v
end

STREAM_MESSAGE = ['tag', [[1_440_949_922, { 'message' => 'hi there' }]]].freeze
def stream_count(quick) = quick ? 20_000 : 1_000_000
STREAM_CHUNK = 65_536

# W7 records, the plain-map lists: beer_list (W5, map mode) and map_list.
def records_lists
  { 'beer_list_maps' => typed_objects['beer_list_map'],
    'map_list_maps' => Array.new(32) { |i| { 'key' => 'a' * i, 'value' => 'a' * i, 'index' => i } } }
end

# notepack's benchmarks/data.js, reconstructed: see docs/benchmark-suite.md.
def medium_or_large(large)
  entries = large ? 1024 : 32
  doc = { 'unsigned' => Array.new(53) { |k| 1 << k }, 'signed' => Array.new(53) { |k| -(1 << k) } }
  doc['bin'] = [pattern_bin(256), pattern_bin(65_536), pattern_bin(1 << 20)] if large
  doc['str'] = ['abc', 'g' * 32, 'h' * 256]
  doc['array'] = [[], [1, 2, 3], %w[a b c], [[1], [2], [3]]]
  map = {}
  entries.times do |i|
    map['a' * i] = 'a' * i
    map['b' * i] = ('b' * i).b
  end
  doc['map'] = map
  doc['nil'] = nil
  doc['bool'] = { 'true' => true, 'false' => false, 'both' => [true, false] }
  doc['undefined'] = [nil, true, false, nil, nil]
  doc
end

def documents
  {
    'tiny' => { 'foo' => 1, 'bar' => 'abc' },
    'small' => { 'foo' => 1, 'bar' => [1, 2, 3, 4, 'abc', 'def'],
                 'foobar' => { 'foo' => true, 'bar' => -2_147_483_649,
                               'foobar' => { 'foo' => [1, 2, 3, 4, 5].pack('C*'), 'bar' => 1.5,
                                             'foobar' => [true, false, 'abcdefghijkmonpqrstuvwxyz'] } } },
    'medium' => medium_or_large(false),
    'large' => medium_or_large(true),
    # msgpack-lite's test/example.json, reconstructed: see docs/benchmark-suite.md.
    'example' => {
      'int0' => 0, 'int1' => 1, 'int1-' => -1, 'int8' => 255, 'int8-' => -255, 'int16' => 256,
      'int16-' => -256, 'int32' => 65_536, 'int32-' => -65_536, 'nil' => nil, 'true' => true,
      'false' => false, 'float' => 0.5, 'float-' => -0.5, 'string0' => '', 'string1' => 'A',
      'string4' => 'foobarbaz', 'string8' => 'Omnes viae Romam ducunt.', 'string16' => alphabet(641),
      'array0' => [], 'array1' => ['foo'], 'array8' => Array.new(21) { |k| 1 << k }, 'map0' => {},
      'map1' => { 'foo' => 'bar' }
    }
  }
end

# Deep equality that tells Integer from Float and binary strings from text.
def same(a, b)
  return false unless a.class == b.class

  case a
  when Hash then a.keys == b.keys && a.all? { |k, v| same(v, b[k]) }
  when Array then a.size == b.size && a.each_index.all? { |k| same(a[k], b[k]) }
  when String then (a.encoding == Encoding::BINARY) == (b.encoding == Encoding::BINARY) && a.b == b.b
  else a == b
  end
end

def bytes?(v)
  case v
  when String then v.encoding == Encoding::BINARY
  when Hash then v.values.any? { |x| bytes?(x) }
  when Array then v.any? { |x| bytes?(x) }
  else false
  end
end

# --- cells ----------------------------------------------------------------------------------

Cell = Struct.new(:workload, :case, :impl, :unit, :units, :op, :verify) do
  def id = "#{workload}/#{self.case}/#{impl}"
end

def stream_pack(values)
  pk = MessagePack::Packer.new
  values.each { |v| pk.write(v) }
  pk.to_s
end

def stream_unpack(data)
  u = MessagePack::Unpacker.new
  u.feed(data)
  out = []
  u.each { |v| out << v }
  out
end

# Reads every value of the stream without keeping them; with `check`, whether each equals it.
def stream_each(data, check = nil)
  u = MessagePack::Unpacker.new
  u.feed(data)
  n = 0
  ok = true
  u.each do |v|
    n += 1
    ok = false if check && ok && !same(v, check)
  end
  check ? [n, ok] : n
end

# W7 stream: messages packed one by one into an IO (StringIO).
def messages_write(msg, count)
  io = StringIO.new(+'', 'wb')
  pk = MessagePack::Packer.new(io)
  count.times { pk.write(msg) }
  pk.flush
  io.string
end

# W7 stream: the bytes arrive in 64 KiB chunks, fed to one Unpacker.
def messages_read(data, check = nil)
  u = MessagePack::Unpacker.new
  n = 0
  ok = true
  (0...data.bytesize).step(STREAM_CHUNK) do |p|
    u.feed_each(data.byteslice(p, STREAM_CHUNK)) do |v|
      n += 1
      ok = false if check && ok && !same(v, check)
    end
  end
  check ? [n, ok] : n
end

def utf8_policy
  s = MessagePack.unpack("\xa2\xff\xfe".b)
  s.valid_encoding? ? 'refuses invalid UTF-8' : 'does not check UTF-8'
rescue StandardError
  'refuses invalid UTF-8'
end

def stream_skip(data)
  u = MessagePack::Unpacker.new
  u.feed(data)
  n = 0
  begin
    loop do
      u.skip
      n += 1
    end
  rescue EOFError
    n
  end
end

class Lazy
  def initialize(&blk) = @blk = blk
  def call = (@done ||= [@blk.call])[0]
end

def cells(ref_dir, quick)
  out = []
  values = quick ? 20_000 : 1_000_000
  maps = quick ? 2_000 : 100_000
  mp = 'msgpack-ruby'
  ref = ->(w, c) { Lazy.new { File.binread(File.join(ref_dir, w, "#{c}.msgpack")) } }
  encode_check = lambda do |r, expected, encode, decode|
    lambda do |state|
      mine = encode.call
      next ['wrong_values', 'its own bytes do not decode to the data', mine.bytesize] unless same(decode.call(mine), expected.call)
      next ['same_bytes', 'same bytes as mpk', mine.bytesize] if mine.b == r.call.b

      state[:encoded] = mine
      ['different_bytes', '', mine.bytesize]
    end
  end
  decode_check = lambda do |r, expected, decode|
    lambda do |_state|
      if same(decode.call(r.call), expected.call)
        ['same_values', "decodes mpk's bytes to the same values", nil]
      else
        ['wrong_values', "decodes mpk's bytes to other values", nil]
      end
    end
  end

  w1 = Lazy.new { small_fields(values) }
  w1ref = ref.call('small_fields', 'stream')
  out << Cell.new('small_fields', 'write_implicit', mp, 'field', values, -> { stream_pack(w1.call) },
                  encode_check.call(w1ref, w1, -> { stream_pack(w1.call) }, method(:stream_unpack)))
  out << Cell.new('small_fields', 'read_generic', mp, 'field', values, -> { stream_unpack(w1ref.call) },
                  decode_check.call(w1ref, w1, method(:stream_unpack)))
  out << Cell.new('small_fields', 'skip', mp, 'field', values, -> { stream_skip(w1ref.call) },
                  lambda { |_s|
                    n = stream_skip(w1ref.call)
                    n == values ? ['same_values', "skips exactly #{n} values of mpk's bytes", nil] : ['wrong_values', "skipped #{n} values instead of #{values}", nil]
                  })
  w3 = Lazy.new { flat_maps(maps) }
  w3ref = ref.call('flat_maps', 'stream')
  out << Cell.new('flat_maps', 'write', mp, 'map', maps, -> { stream_pack(w3.call) },
                  encode_check.call(w3ref, w3, -> { stream_pack(w3.call) }, method(:stream_unpack)))
  out << Cell.new('flat_maps', 'read_dynamic', mp, 'map', maps, -> { stream_unpack(w3ref.call) },
                  decode_check.call(w3ref, w3, method(:stream_unpack)))

  # W2 strings_binary: streams of max(1, 32 MiB / size) values of one size.
  strings_binary(quick).each do |name, (payload, count)|
    r = ref.call('strings_binary', name)
    data = Lazy.new { Array.new(count, payload) }
    enc = -> { stream_pack(data.call) }
    out << Cell.new('strings_binary', "#{name}_write", mp, 'value', count, enc,
                    encode_check.call(r, data, enc, method(:stream_unpack)))
    how = payload.encoding == Encoding::BINARY ? 'into String (a copy)' : "into String (a copy); msgpack-ruby #{utf8_policy}"
    out << Cell.new('strings_binary', "#{name}_read_copy", mp, 'value', count, -> { stream_each(r.call) },
                    lambda { |_s|
                      n, ok = stream_each(r.call, payload)
                      ok && n == count ? ['same_values', "decodes mpk's bytes to the same values (#{how})", nil] : ['wrong_values', "decodes mpk's bytes to other values (#{n} values)", nil]
                    })
  end

  # W4 deep_nesting: one structure per operation, MessagePack and JSON.
  NEST_DEPTHS.each do |n|
    value = Lazy.new { nest(n) }
    r = ref.call('deep_nesting', "nest_#{n}")
    enc = -> { MessagePack.pack(value.call) }
    dec = ->(b) { MessagePack.unpack(b) }
    out << Cell.new('deep_nesting', "build_#{n}", mp, 'structure', 1, enc, encode_check.call(r, value, enc, dec))
    out << Cell.new('deep_nesting', "dom_#{n}", mp, 'structure', 1, -> { MessagePack.unpack(r.call) },
                    decode_check.call(r, value, dec))
    text = Lazy.new { JSON.generate(value.call, max_nesting: false) }
    jv = lambda do |_s|
      if same(JSON.parse(text.call, max_nesting: false), value.call)
        ['same_values', 'JSON text (no MessagePack bytes to compare); round trip gives the same values', text.call.bytesize]
      else
        ['wrong_values', 'JSON round trip changes the values', nil]
      end
    end
    out << Cell.new('deep_nesting', "build_#{n}", 'json-ruby', 'structure', 1, -> { JSON.generate(value.call, max_nesting: false) }, jv)
    out << Cell.new('deep_nesting', "dom_#{n}", 'json-ruby', 'structure', 1, -> { JSON.parse(text.call, max_nesting: false) }, jv)
  end

  per_object = lambda do |workload, data, enc_name, dec_name|
    data.call.each_key do |name|
      value = -> { data.call[name] }
      r = ref.call(workload, name)
      enc = -> { MessagePack.pack(value.call) }
      dec = ->(b) { MessagePack.unpack(b) }
      out << Cell.new(workload, "#{enc_name}_#{name}", mp, 'op', 1, enc, encode_check.call(r, value, enc, dec))
      out << Cell.new(workload, "#{dec_name}_#{name}", mp, 'op', 1, -> { MessagePack.unpack(r.call) },
                      decode_check.call(r, value, dec))
      next if bytes?(data.call[name])

      text = Lazy.new { JSON.generate(value.call) }
      jv = lambda do |_s|
        if same(JSON.parse(JSON.generate(value.call)), value.call)
          ['same_values', 'JSON text (no MessagePack bytes to compare); round trip gives the same values', text.call.bytesize]
        else
          ['wrong_values', 'JSON round trip changes the values', nil]
        end
      end
      out << Cell.new(workload, "#{enc_name}_#{name}", 'json-ruby', 'op', 1, -> { JSON.generate(value.call) }, jv)
      out << Cell.new(workload, "#{dec_name}_#{name}", 'json-ruby', 'op', 1, -> { JSON.parse(text.call) }, jv)
    end
  end
  per_object.call('typed_objects', Lazy.new { typed_objects }, 'serialize', 'deserialize')

  w6 = lua_bench
  w6.each do |name, v|
    r = ref.call('lua_bench', name)
    out << Cell.new('lua_bench', name, mp, 'op', 1, -> { MessagePack.unpack(MessagePack.pack(v)) }, lambda { |state|
      mine = MessagePack.pack(v)
      next ['wrong_values', "decodes mpk's bytes to other values", mine.bytesize] unless same(MessagePack.unpack(r.call), v)
      next ['wrong_values', 'its own bytes do not decode to the data', mine.bytesize] unless same(MessagePack.unpack(mine), v)
      next ['same_bytes', "same bytes as mpk; decodes mpk's bytes to the same values", mine.bytesize] if mine.b == r.call.b

      state[:encoded] = mine
      ['different_bytes', '', mine.bytesize]
    })
  end
  per_object.call('documents', Lazy.new { documents }, 'encode', 'decode')

  # W7 stream: messages written to and read from a stream; one message is the unit.
  count = stream_count(quick)
  sref = ref.call('documents', 'stream')
  out << Cell.new('documents', 'encode_stream', mp, 'op', count, -> { messages_write(STREAM_MESSAGE, count) }, lambda { |state|
    mine = messages_write(STREAM_MESSAGE, count)
    n, ok = messages_read(mine, STREAM_MESSAGE)
    next ['wrong_values', 'its own stream does not read back to the messages', mine.bytesize] unless ok && n == count
    next ['same_bytes', 'same bytes as mpk (Packer on a StringIO)', mine.bytesize] if mine.b == sref.call.b

    state[:encoded] = mine
    ['different_bytes', '', mine.bytesize]
  })
  out << Cell.new('documents', 'decode_stream', mp, 'op', count, -> { messages_read(sref.call) }, lambda { |_s|
    n, ok = messages_read(sref.call, STREAM_MESSAGE)
    ok && n == count ? ['same_values', "reads mpk's stream, fed in 64 KiB chunks (Unpacker#feed_each), to the same #{n} messages", nil] : ['wrong_values', "read #{n} messages", nil]
  })

  # W7 records: msgpack-ruby has no record extension: it runs the plain-map lists.
  per_object.call('documents', Lazy.new { records_lists }, 'encode', 'decode')
  out
end

# --- timing ---------------------------------------------------------------------------------

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# A cell being timed: its operation (warmed up), batch, repetitions and samples (ns per unit
# of each repetition, in the order they ran).
Timed = Struct.new(:op, :units, :batch, :reps, :samples)

def prepare(op, units, quick)
  # MPK_BENCH_SHORT=1 (the runner's default mode): shorter batches, as many repetitions.
  warm, target, reps = if quick then [0.01, 0.02, 3]
                       elsif ENV['MPK_BENCH_SHORT'] == '1' then [0.03, 0.05, 5]
                       else [0.1, 0.25, 5]
                       end
  t0 = now
  calls = 0
  loop do
    op.call
    calls += 1
    break if now - t0 >= warm
  end
  per_call = (now - t0) / calls
  batch = [1, (target / per_call).to_i].max
  reps = 3 if per_call >= 2.0 # long operations: 3 repetitions (docs/benchmark-suite.md)
  Timed.new(op, units, batch, reps, [])
end

def time_rep(t)
  s = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  t.batch.times { t.op.call }
  t.samples << (Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - s).to_f / (t.batch * t.units)
end

# The repetitions of the implementations of one case, interleaved (docs/benchmark-suite.md,
# "Interleaving"; as mpk_bench's suite::register_benchmarks): repetition k of every
# implementation before repetition k + 1 of any, the first one rotating (A B, B A, ...). One
# with fewer repetitions (a long operation) drops out of the later rounds.
def time_interleaved(timings)
  n = timings.size
  rounds = timings.map(&:reps).max || 0
  rounds.times do |k|
    n.times do |j|
      t = timings[(k + j) % n]
      time_rep(t) if t.samples.size < t.reps
    end
  end
end

# [median, range %, repetitions, objects allocated by one more call] (the runner computes the
# robust spread from the samples: the repetitions_ns column).
def summary(t)
  samples = t.samples.sort
  n = samples.size
  median = n.odd? ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2
  before = GC.stat(:total_allocated_objects)
  t.op.call
  allocs = GC.stat(:total_allocated_objects) - before
  [median, median.positive? ? (samples[-1] - samples[0]) / median * 100 : 0.0, n, allocs]
end

def csv(s)
  s = s.to_s
  s.match?(/[,"\n]/) ? "\"#{s.gsub('"', '""')}\"" : s
end

def fnv1a64(s)
  h = 0xcbf29ce484222325
  s.each_byte { |b| h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff }
  format('%016x', h)
end

def check_generators(ref_dir, quick)
  gens = { 'typed_objects' => typed_objects, 'lua_bench' => lua_bench, 'documents' => documents.merge(records_lists),
           'deep_nesting' => NEST_DEPTHS.to_h { |n| ["nest_#{n}", nest(n)] } }
  w2 = strings_binary(quick)
  bad = 0
  checked = 0
  File.readlines(File.join(ref_dir, 'digests.csv')).drop(1).each do |line|
    w, c, _, h = line.strip.split(',')
    bytes = case w
            when 'small_fields' then stream_pack(small_fields(quick ? 20_000 : 1_000_000))
            when 'flat_maps' then stream_pack(flat_maps(quick ? 2_000 : 100_000))
            when 'strings_binary' then w2[c]&.then { |p, n| stream_pack(Array.new(n, p)) }
            when 'documents' then c == 'stream' ? messages_write(STREAM_MESSAGE, stream_count(quick)) : gens.dig(w, c)&.then { |v| MessagePack.pack(v) }
            else gens.dig(w, c)&.then { |v| MessagePack.pack(v) }
            end
    if bytes.nil? && w == 'documents' && c.end_with?('_records')
      puts "SKIP #{w}/#{c}: msgpack-ruby has no record extension"
      next
    end
    if bytes.nil?
      puts "MISSING #{w}/#{c}: no generator"
      bad += 1
      next
    end
    checked += 1
    got = fnv1a64(bytes)
    if got == h
      puts "OK #{w}/#{c} #{got}"
    else
      puts "DIFF #{w}/#{c}: #{got}, mpk #{h}"
      bad += 1
    end
  end
  puts "#{checked} cases checked, #{bad} failed"
  bad.zero? ? 0 : 1
end

def main(argv)
  opt = { only: '' }
  until argv.empty?
    a = argv.shift
    case a
    when '--quick', '--list', '--check-generators' then opt[a[2..].tr('-', '_').to_sym] = true
    when '--ref', '--out', '--only', '--bytes-dir' then opt[a[2..].tr('-', '_').to_sym] = argv.shift
    else
      warn "harness.rb: unknown option #{a}"
      return 2
    end
  end
  abort 'harness.rb: --ref DIR is required' unless opt[:ref]
  return check_generators(opt[:ref], opt[:quick]) if opt[:check_generators]

  only = opt[:only].split(',').reject(&:empty?)
  todo = cells(opt[:ref], opt[:quick]).select { |c| only.empty? || only.any? { |s| c.id.include?(s) } }
  if opt[:list]
    todo.each { |c| puts c.id }
    return 0
  end
  versions = { 'msgpack-ruby' => "msgpack #{MessagePack::VERSION} / Ruby #{RUBY_VERSION}",
               'json-ruby' => "json #{JSON::VERSION} / Ruby #{RUBY_VERSION}" }
  failed = 0
  File.open(opt[:out], 'w') do |f|
    f.puts 'workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,' \
           'noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op,repetitions_ns'
    # The cells of one case (workload/case), in the order listed: verified one by one, then
    # timed together, their repetitions interleaved.
    todo.group_by { |c| [c.workload, c.case] }.each_value do |group|
      results = group.map do |c|
        state = {}
        verdict, text, size = begin
          c.verify.call(state)
        rescue StandardError => e
          ['error', "#{e.class}: #{e.message}", nil]
        end
        if verdict == 'different_bytes' && opt[:bytes_dir] && state[:encoded]
          rel = File.join(c.impl, c.workload, "#{c.case}.msgpack")
          path = File.join(opt[:bytes_dir], rel)
          FileUtils.mkdir_p(File.dirname(path))
          File.binwrite(path, state[:encoded])
          text = "bytes:#{rel}"
        end
        [c, verdict, text, size, nil]
      end
      results.each do |r|
        r[4] = prepare(r[0].op, r[0].units, opt[:quick]) if %w[same_bytes different_bytes same_values].include?(r[1])
      end
      time_interleaved(results.map { |r| r[4] }.compact)
      results.each do |c, verdict, text, size, t|
        row = [c.workload, c.case, c.impl, LANGUAGE, versions[c.impl], c.unit, '', '', '', '', verdict, text, size || '', '', '', '']
        if t
          m, s, n, allocs = summary(t)
          row[6..9] = [format('%.4f', m), format('%.2f', s), n, s > 5 ? 'yes' : 'no']
          row[14] = format('%.2f', allocs.to_f / c.units)
          row[15] = t.samples.map { |x| format('%.4f', x) }.join(' ')
        else
          failed += 1
        end
        f.puts row.map { |x| csv(x) }.join(',')
        f.flush
        puts "CELL #{c.id} #{verdict}"
        $stdout.flush
      end
    end
  end
  failed.zero? ? 0 : 1
end

exit main(ARGV.dup)
