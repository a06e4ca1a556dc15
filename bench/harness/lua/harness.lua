-- Lua harness of the mpk benchmark suite: lua-MessagePack (Debian lua-messagepack) on Lua 5.4
-- and on LuaJIT; the same file runs on both.
--
--   lua5.4 harness.lua --ref DIR --out FILE [--quick] [--only SUBSTR,...] [--list] [--bytes-dir DIR]
--   luajit harness.lua --ref DIR --check-generators [--quick]
--
-- Debian packages lua-MessagePack for Lua 5.1 (LuaJIT) to 5.3; the 5.3 source (string.pack,
-- integer subtype) is the one for 5.4, so the runner sets LUA_PATH to /usr/share/lua/5.3 for
-- lua5.4. lua-MessagePack is used with set_string'string' (str8 for 32..255-byte strings, as
-- the current spec and mpk; its default 'string_compat' follows the old spec).
--
-- What Lua cannot express is not run: binaries next to strings (one Lua string type), nil
-- inside maps and arrays, an empty map told from an empty array. So W7 runs 'tiny' only.
-- Maps are Lua tables: their key order is the hash table's, so map bytes differ from mpk's
-- and values are compared without order. Timing uses os.clock() (process CPU time).
local mp = require 'MessagePack'
mp.set_string 'string'

local LANGUAGE = 'Lua'
local IS_JIT = type(jit) == 'table'
local IMPL = IS_JIT and 'lua-MessagePack-luajit' or 'lua-MessagePack-lua5.4'
-- Integer division that keeps Lua 5.4's integer subtype (LuaJIT has no '//').
local idiv = IS_JIT and function(a, b) return math.floor(a / b) end or load('local a, b = ... return a // b')
local math_type = math.type or function(n) return n == math.floor(n) and 'integer' or 'float' end

-- --- data, exactly as docs/workloads.md defines it --------------------------------------------

local function small_fields(values)
  local out, n = {}, 0
  for i = 0, math.floor(values / 8) - 1 do
    local t = { i % 128, -(i % 1000) - 1, 40000 + i % 1000, -100000 - i, 5000000000 + i,
                i + 0.25, 1.0 / (i + 3), string.format('field%03d', i % 1000) }
    for k = 1, 8 do out[n + k] = t[k] end
    n = n + 8
  end
  return out
end

local function flat_maps(count)
  local maps = {}
  for i = 0, count - 1 do
    local m = {}
    for j = 0, 15 do
      local key, r = string.format('k%02d', j), j % 4
      if r == 0 then m[key] = i * 16 + j
      elseif r == 1 then m[key] = i + (j + 0.5) / 16
      elseif r == 2 then m[key] = 'v' .. tostring(i % 100)
      else m[key] = (i + j) % 2 == 0 end
    end
    maps[i + 1] = m
  end
  return maps
end

local SORTS = { 'pale', 'amber', 'dark', 'stout', 'porter' }
local function sorts() local t = {} for k, v in ipairs(SORTS) do t[k] = v end return t end
local function beer(brand, alcohol, map_mode)
  if map_mode then return { brand = brand, alcohol = alcohol, brewery = 'Brew Co', sort = sorts() } end
  return { brand, alcohol, 'Brew Co', sorts() }
end

local function typed_objects()
  local d = { int_array = {}, double_array = {} }
  for k = 0, 99 do
    d.int_array[k + 1] = (k * 7919) % 65536 - 1000
    d.double_array[k + 1] = k * 1.1 + 0.5
  end
  for _, mode in ipairs { 'map', 'array' } do
    local map_mode = mode == 'map'
    d['beer_' .. mode] = beer('Ale Brewery Lager', 4.5, map_mode)
    local list = {}
    for k = 0, 9 do list[k + 1] = beer('Ale ' .. tostring(k), 4.5 + k / 4, map_mode) end
    d['beer_list_' .. mode] = list
  end
  return d
end

local function lua_bench()
  local d, order = {}, {}
  local function add(name, v) d[name] = v; order[#order + 1] = name end
  add('empty', {})
  add('iary1', { 1 })
  local t = {} for k = 1, 10 do t[k] = k - 6 end
  add('iary10', t)
  for _, n in ipairs { 100, 1000, 10000 } do
    local a = {} for i = 1, n do a[i] = i - idiv(n, 2) end
    add('iary' .. n, a)
  end
  add('dary1', { 1.5e35 })
  for _, n in ipairs { 10, 100, 1000 } do
    local a = {} for i = 1, n do a[i] = 1.5e35 * i end
    add('dary' .. n, a)
  end
  add('str1', { 'a' })
  for _, n in ipairs { 10, 100, 1000, 10000, 20000, 30000, 40000, 80000 } do
    add('str' .. n, string.rep('a', n - 1) .. 'b')
  end
  return d, order
end

-- W2: every case writes max(1, min(1,000,000, total / size)) values of one size (mpk_gen).
local ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
local function alphabet(n) return (string.rep(ALPHABET, math.floor(n / #ALPHABET) + 1)):sub(1, n) end
local function pattern_bin(n)
  local t = {}
  for k = 0, n - 1 do t[k + 1] = string.char((k * 31 + 7) % 256) end
  return table.concat(t)
end
local UTF8_UNIT = 'h\195\169llo w\195\182rld \226\156\147 '
local function utf8_text(n)
  -- UTF8_UNIT repeated, cut at the last whole character at or below n bytes.
  local s = string.rep(UTF8_UNIT, math.floor(n / #UTF8_UNIT) + 1):sub(1, n + 1)
  local k = n + 1
  while k > 1 and s:byte(k) >= 0x80 and s:byte(k) < 0xC0 do k = k - 1 end
  return s:sub(1, k - 1)
end
local W2_ORDER = { 'ascii_8', 'ascii_1k', 'ascii_64k', 'utf8_1k', 'bin_1k', 'bin_1m' }
local function strings_binary(quick)
  local total = quick and 256 * 1024 or 32 * 1024 * 1024
  local p = { ascii_8 = alphabet(8), ascii_1k = alphabet(1024), ascii_64k = alphabet(65536),
              utf8_1k = utf8_text(1024), bin_1k = pattern_bin(1024), bin_1m = pattern_bin(1048576) }
  local d = {}
  for name, v in pairs(p) do
    d[name] = { payload = v, count = math.max(1, math.min(1000000, math.floor(total / #v))), binary = name:sub(1, 4) == 'bin_' }
  end
  return d
end

local NEST_DEPTHS = { 1, 2, 4, 8, 16, 32, 64, 128 }
local function nest(n)
  local v = { 1, 2, 3 }
  for _ = 2, n do v = { 1, 2, 3, v } end
  return v
end

local STREAM_MESSAGE = { 'tag', { { 1440949922, { message = 'hi there' } } } }
local STREAM_CHUNK = 65536

-- W7 records, the plain-map lists: beer_list (W5, map mode) and map_list.
local function records_lists()
  local list = {}
  for i = 0, 31 do list[i + 1] = { key = string.rep('a', i), value = string.rep('a', i), index = i } end
  return { beer_list_maps = typed_objects().beer_list_map, map_list_maps = list }
end

-- Deep equality, without order for tables; tells integers from floats on Lua 5.3+.
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == 'number' then return a == b and (IS_JIT or math_type(a) == math_type(b)) end
  if type(a) ~= 'table' then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- --- cells --------------------------------------------------------------------------------

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function lazy(fn)
  local v, done
  return function() if not done then v = fn(); done = true end return v end
end

local function stream_pack(values)
  local parts, pack = {}, mp.pack
  for k = 1, #values do parts[k] = pack(values[k]) end
  return table.concat(parts)
end

-- Packs as binaries (lua-MessagePack's set_string'binary'), then back to str.
local function as_binary(fn)
  mp.set_string 'binary'
  local ok, r = pcall(fn)
  mp.set_string 'string'
  if not ok then error(r, 0) end
  return r
end

-- Reads every value of the stream without keeping them; with `check`, whether each equals it.
local function stream_each(s, check)
  local n, ok = 0, true
  for _, v in mp.unpacker(s) do
    n = n + 1
    if check ~= nil and ok and not same(v, check) then ok = false end
  end
  return n, ok
end

-- W7 stream: messages packed one by one into a list of chunks (Lua's string builder).
local function messages_write(msg, count)
  local parts, pack = {}, mp.pack
  for k = 1, count do parts[k] = pack(msg) end
  return table.concat(parts)
end

-- W7 stream: the bytes arrive in 64 KiB chunks (mp.unpacker over a function source).
local function messages_read(s, check)
  local pos = 1
  local function source()
    if pos > #s then return nil end
    local chunk = s:sub(pos, pos + STREAM_CHUNK - 1)
    pos = pos + STREAM_CHUNK
    return chunk
  end
  local n, ok = 0, true
  for _, v in mp.unpacker(source) do
    n = n + 1
    if check ~= nil and ok and not same(v, check) then ok = false end
  end
  return n, ok
end

local function stream_unpack(s)
  local out, n = {}, 0
  for _, v in mp.unpacker(s) do n = n + 1; out[n] = v end
  return out
end

local function cells(ref_dir, quick)
  local out = {}
  local values = quick and 20000 or 1000000
  local maps = quick and 2000 or 100000
  local function ref(w, c) return lazy(function() return read_file(ref_dir .. '/' .. w .. '/' .. c .. '.msgpack') end) end
  local function add(workload, case, unit, units, op, verify)
    out[#out + 1] = { workload = workload, case = case, unit = unit, units = units, op = op, verify = verify,
                      id = workload .. '/' .. case .. '/' .. IMPL }
  end
  local function encode_check(r, expected, encode, decode, why)
    return function(state)
      local mine = encode()
      if not same(decode(mine), expected()) then return 'wrong_values', 'its own bytes do not decode to the data', #mine end
      if mine == r() then return 'same_bytes', 'same bytes as mpk', #mine end
      state.encoded = mine
      return 'different_bytes', why or '', #mine
    end
  end
  local function decode_check(r, expected, decode)
    return function()
      if same(decode(r()), expected()) then return 'same_values', "decodes mpk's bytes to the same values" end
      return 'wrong_values', "decodes mpk's bytes to other values"
    end
  end

  local w1, w1ref = lazy(function() return small_fields(values) end), ref('small_fields', 'stream')
  add('small_fields', 'write_implicit', 'field', values, function() return stream_pack(w1()) end,
      encode_check(w1ref, w1, function() return stream_pack(w1()) end, stream_unpack))
  add('small_fields', 'read_generic', 'field', values, function() return stream_unpack(w1ref()) end,
      decode_check(w1ref, w1, stream_unpack))

  local w3, w3ref = lazy(function() return flat_maps(maps) end), ref('flat_maps', 'stream')
  add('flat_maps', 'write', 'map', maps, function() return stream_pack(w3()) end,
      encode_check(w3ref, w3, function() return stream_pack(w3()) end, stream_unpack))
  add('flat_maps', 'read_dynamic', 'map', maps, function() return stream_unpack(w3ref()) end,
      decode_check(w3ref, w3, stream_unpack))

  local w5 = lazy(typed_objects)
  for _, name in ipairs { 'int_array', 'double_array', 'beer_map', 'beer_array', 'beer_list_map', 'beer_list_array' } do
    local r = ref('typed_objects', name)
    local value = function() return w5()[name] end
    add('typed_objects', 'serialize_' .. name, 'op', 1, function() return mp.pack(value()) end,
        encode_check(r, value, function() return mp.pack(value()) end, mp.unpack))
    add('typed_objects', 'deserialize_' .. name, 'op', 1, function() return mp.unpack(r()) end,
        decode_check(r, value, mp.unpack))
  end

  -- W2 strings_binary: streams of max(1, 32 MiB / size) values of one size.
  local w2 = strings_binary(quick)
  for _, name in ipairs(W2_ORDER) do
    local d, r = w2[name], ref('strings_binary', name)
    local data = lazy(function() local t = {} for k = 1, d.count do t[k] = d.payload end return t end)
    local enc = d.binary and function() return as_binary(function() return stream_pack(data()) end) end
      or function() return stream_pack(data()) end
    add('strings_binary', name .. '_write', 'value', d.count, enc, encode_check(r, data, enc, stream_unpack))
    local how = d.binary and 'binaries come back as Lua strings' or 'Lua strings are bytes: no UTF-8 check'
    add('strings_binary', name .. '_read_copy', 'value', d.count, function() return stream_each(r()) end, function()
      local n, ok = stream_each(r(), d.payload)
      if ok and n == d.count then return 'same_values', "decodes mpk's bytes to the same values (" .. how .. ')' end
      return 'wrong_values', "decodes mpk's bytes to other values (" .. n .. ' values)'
    end)
  end

  -- W4 deep_nesting: one structure per operation.
  for _, n in ipairs(NEST_DEPTHS) do
    local r, value = ref('deep_nesting', 'nest_' .. n), lazy(function() return nest(n) end)
    add('deep_nesting', 'build_' .. n, 'structure', 1, function() return mp.pack(value()) end,
        encode_check(r, value, function() return mp.pack(value()) end, mp.unpack))
    add('deep_nesting', 'dom_' .. n, 'structure', 1, function() return mp.unpack(r()) end,
        decode_check(r, value, mp.unpack))
  end

  local w6, order = lua_bench()
  for _, name in ipairs(order) do
    local r, v = ref('lua_bench', name), w6[name]
    add('lua_bench', name, 'op', 1, function() return mp.unpack(mp.pack(v)) end, function(state)
      local mine = mp.pack(v)
      if not same(mp.unpack(r()), v) then return 'wrong_values', "decodes mpk's bytes to other values", #mine end
      if not same(mp.unpack(mine), v) then return 'wrong_values', 'its own bytes do not decode to the data', #mine end
      if mine == r() then return 'same_bytes', "same bytes as mpk; decodes mpk's bytes to the same values", #mine end
      state.encoded = mine
      return 'different_bytes', '', #mine
    end)
  end

  local tiny = function() return { foo = 1, bar = 'abc' } end
  local tr = ref('documents', 'tiny')
  add('documents', 'encode_tiny', 'op', 1, function() return mp.pack(tiny()) end,
      encode_check(tr, tiny, function() return mp.pack(tiny()) end, mp.unpack))
  add('documents', 'decode_tiny', 'op', 1, function() return mp.unpack(tr()) end, decode_check(tr, tiny, mp.unpack))

  -- W7 stream: messages written to and read from a stream; one message is the unit.
  local count, sref = quick and 20000 or 1000000, ref('documents', 'stream')
  add('documents', 'encode_stream', 'op', count, function() return messages_write(STREAM_MESSAGE, count) end, function(state)
    local mine = messages_write(STREAM_MESSAGE, count)
    local n, ok = messages_read(mine, STREAM_MESSAGE)
    if not ok or n ~= count then return 'wrong_values', 'its own stream does not read back to the messages', #mine end
    if mine == sref() then return 'same_bytes', 'same bytes as mpk', #mine end
    state.encoded = mine
    return 'different_bytes', '', #mine
  end)
  add('documents', 'decode_stream', 'op', count, function() return messages_read(sref()) end, function()
    local n, ok = messages_read(sref(), STREAM_MESSAGE)
    if ok and n == count then return 'same_values', "reads mpk's stream, fed in 64 KiB chunks (unpacker over a function), to the same " .. n .. ' messages' end
    return 'wrong_values', 'read ' .. n .. ' messages'
  end)

  -- W7 records: lua-MessagePack has no record extension: it runs the plain-map lists
  -- (table order: its map bytes differ from mpk's, values are compared without order).
  local lists = lazy(records_lists)
  for _, name in ipairs { 'beer_list_maps', 'map_list_maps' } do
    local r, value = ref('documents', name), function() return lists()[name] end
    add('documents', 'encode_' .. name, 'op', 1, function() return mp.pack(value()) end,
        encode_check(r, value, function() return mp.pack(value()) end, mp.unpack))
    add('documents', 'decode_' .. name, 'op', 1, function() return mp.unpack(r()) end, decode_check(r, value, mp.unpack))
  end
  return out
end

-- --- timing -------------------------------------------------------------------------------

-- An operation of LONG_OP seconds or more gets 3 repetitions instead of 5 (every harness does
-- the same). MPK_BENCH_SHORT=1 (the runner's default mode): shorter batches, as many
-- repetitions for an operation under SHORT_LONG_OP seconds; one of SHORT_LONG_OP or more gets 3,
-- one of LONG_OP or more 2 (as the JavaScript harness), each judged on the operation's own time
-- (its first repetition), not on the verification's. `verified`: the seconds the verification
-- took; it ran the operation once, so when it lasted SHORT_LONG_OP or more it was the warm-up
-- (as in JavaScript), and an operation still shorter than a batch is warmed up as usual.
local LONG_OP, SHORT_LONG_OP = 2, 0.5
local function measure(op, units, quick, verified)
  local warm, target, reps = 0.1, 0.25, 5
  local short = os.getenv('MPK_BENCH_SHORT') == '1' and not quick
  if short then warm, target = 0.03, 0.05 end
  if quick then warm, target, reps = 0.01, 0.02, 3 end
  local samples = {}
  local batch
  if short and verified >= SHORT_LONG_OP then
    local s = os.clock()
    op()
    local per_call = os.clock() - s
    if per_call >= target then
      -- A batch of one call, and this call its first repetition.
      batch, samples[1] = 1, per_call * 1e9 / units
      if per_call >= LONG_OP then reps = 2 elseif per_call >= SHORT_LONG_OP then reps = 3 end
    end
  end
  if batch == nil then
    local t0, calls, elapsed = os.clock(), 0, 0
    repeat
      op(); calls = calls + 1; elapsed = os.clock() - t0
    until elapsed >= warm
    batch = math.max(1, math.floor(target / (elapsed / calls)))
    local long = short and SHORT_LONG_OP or LONG_OP
    if elapsed / calls >= long then reps = (short and elapsed / calls >= LONG_OP) and 2 or 3 end
  end
  for r = #samples + 1, reps do
    local s = os.clock()
    for _ = 1, batch do op() end
    samples[r] = (os.clock() - s) * 1e9 / (batch * units)
  end
  -- The samples in the order they ran (the repetitions_ns column: the runner computes the
  -- robust spread from them), then sorted for the median and the range.
  local inorder = {}
  for r = 1, #samples do inorder[r] = string.format('%.4f', samples[r]) end
  table.sort(samples)
  local n = #samples
  local median = n % 2 == 1 and samples[(n + 1) / 2] or (samples[n / 2] + samples[n / 2 + 1]) / 2
  return median, median > 0 and (samples[n] - samples[1]) / median * 100 or 0, n, table.concat(inorder, ' ')
end

local function csv(s)
  s = tostring(s)
  if s:find('[,"\n]') then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- 64-bit FNV-1a on Lua 5.3+ integers (wrapping multiplication); compiled from text so that
-- LuaJIT, which has no '~' operator nor 64-bit integers, can still load this file.
local fnv1a64 = IS_JIT and function() return nil end or load([[
  local s = ...
  local h = -3750763034362895579  -- 0xcbf29ce484222325
  for k = 1, #s do h = (h ~ s:byte(k)) * 0x100000001b3 end
  return string.format('%016x', h)
]])

local function check_generators(ref_dir, quick)
  -- Byte digests for the cases whose bytes do not depend on table order or on LuaJIT's single
  -- number type; value comparison with mpk's decoded bytes for the others (said on each line).
  local gens = typed_objects()
  local w6 = lua_bench()
  local w2 = strings_binary(quick)
  local lists = records_lists()
  local digests = {}
  for line in io.lines(ref_dir .. '/digests.csv') do
    local w, c, _, h = line:match('^([^,]*),([^,]*),([^,]*),([^,]*)$')
    if w ~= 'workload' then digests[#digests + 1] = { w, c, h } end
  end
  local bad, checked = 0, 0
  for _, d in ipairs(digests) do
    local w, c, h = d[1], d[2], d[3]
    local data, multi, binary
    if w == 'small_fields' then data, multi = small_fields(quick and 20000 or 1000000), true
    elseif w == 'flat_maps' then data, multi = flat_maps(quick and 2000 or 100000), true
    elseif w == 'typed_objects' then data = gens[c]
    elseif w == 'lua_bench' then data = w6[c]
    elseif w == 'documents' and c == 'tiny' then data = { foo = 1, bar = 'abc' }
    elseif w == 'documents' and c == 'stream' then
      data, multi = {}, true
      for k = 1, quick and 20000 or 1000000 do data[k] = STREAM_MESSAGE end
    elseif w == 'documents' then data = lists[c]
    elseif w == 'deep_nesting' then data = nest(tonumber(c:match('^nest_(%d+)$')))
    elseif w == 'strings_binary' and w2[c] then
      data, multi = {}, true
      for k = 1, w2[c].count do data[k] = w2[c].payload end
      binary = w2[c].binary
    end
    if data == nil then
      print(string.format('SKIP %s/%s: not expressible in Lua', w, c))
    else
      checked = checked + 1
      local function enc() return multi and stream_pack(data) or mp.pack(data) end
      local bytes = binary and as_binary(enc) or enc()
      local refb = read_file(ref_dir .. '/' .. w .. '/' .. c .. '.msgpack')
      local ok, how
      if not IS_JIT and bytes == refb or (not IS_JIT and fnv1a64(bytes) == h) then
        ok, how = true, 'digest ' .. fnv1a64(bytes)
      else
        local decoded = multi and stream_unpack(refb) or mp.unpack(refb)
        ok, how = same(decoded, data), 'values (table order or LuaJIT numbers)'
      end
      if not ok then bad = bad + 1 end
      print(string.format('%s %s/%s %s', ok and 'OK' or 'DIFF', w, c, how))
    end
  end
  print(string.format('%d cases checked, %d failed', checked, bad))
  return bad == 0 and 0 or 1
end

local function main(argv)
  local opt, k = { only = '' }, 1
  while k <= #argv do
    local a = argv[k]
    if a == '--quick' or a == '--list' or a == '--check-generators' then opt[a:sub(3)] = true
    elseif a == '--ref' or a == '--out' or a == '--only' or a == '--bytes-dir' then opt[a:sub(3)] = argv[k + 1]; k = k + 1
    else io.stderr:write('harness.lua: unknown option ' .. a .. '\n'); return 2 end
    k = k + 1
  end
  if not opt.ref then io.stderr:write('harness.lua: --ref DIR is required\n'); return 2 end
  if opt['check-generators'] then return check_generators(opt.ref, opt.quick) end
  local only = {}
  for s in opt.only:gmatch('[^,]+') do only[#only + 1] = s end
  local todo = {}
  for _, c in ipairs(cells(opt.ref, opt.quick)) do
    local keep = #only == 0
    for _, s in ipairs(only) do if c.id:find(s, 1, true) then keep = true end end
    if keep then todo[#todo + 1] = c end
  end
  if opt.list then for _, c in ipairs(todo) do print(c.id) end return 0 end
  local version = 'lua-MessagePack ' .. mp._VERSION .. ' / ' .. (IS_JIT and jit.version or _VERSION)
  local f = assert(io.open(opt.out, 'w'))
  f:write('workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,'
          .. 'noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op,repetitions_ns\n')
  local failed = 0
  for _, c in ipairs(todo) do
    local state = {}
    local verify_start = os.clock()
    local ok, verdict, text, size = pcall(c.verify, state)
    local verified = os.clock() - verify_start
    if not ok then verdict, text, size = 'error', tostring(verdict), nil end
    if verdict == 'different_bytes' and opt['bytes-dir'] and state.encoded then
      local rel = IMPL .. '/' .. c.workload .. '/' .. c.case .. '.msgpack'
      os.execute("mkdir -p '" .. opt['bytes-dir'] .. '/' .. IMPL .. '/' .. c.workload .. "'")
      local b = assert(io.open(opt['bytes-dir'] .. '/' .. rel, 'wb'))
      b:write(state.encoded); b:close()
      text = 'bytes:' .. rel .. ((text ~= nil and text ~= '') and ('; ' .. text) or '')
    end
    local median, spread, reps, noisy, samples = '', '', '', '', ''
    if verdict == 'same_bytes' or verdict == 'different_bytes' or verdict == 'same_values' then
      local m, s, n
      m, s, n, samples = measure(c.op, c.units, opt.quick, verified)
      median, spread, reps, noisy = string.format('%.4f', m), string.format('%.2f', s), n, s > 5 and 'yes' or 'no'
    else
      failed = failed + 1
    end
    local row = { c.workload, c.case, IMPL, LANGUAGE, version, c.unit, median, spread, reps, noisy, verdict,
                  text or '', size or '', '', '', samples }
    for i = 1, #row do row[i] = csv(row[i]) end
    f:write(table.concat(row, ',') .. '\n')
    f:flush()
    print('CELL ' .. c.id .. ' ' .. verdict)
    io.stdout:flush()
  end
  f:close()
  return failed == 0 and 0 or 1
end

os.exit(main(arg))
