// Every cell of the .NET harness, with its operation and its verification.
using System.Buffers;
using System.Text;
using System.Text.Json;
using MessagePack;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;
using NB = Nerdbank.MessagePack;
using MpcSerializer = MessagePack.MessagePackSerializer;
using StjSerializer = System.Text.Json.JsonSerializer;

namespace MpkBench;

public static class Cells
{
    public const string Mpc = "MessagePack-CSharp", Nb = "Nerdbank.MessagePack", JsonNet = "Json.NET", Stj = "System.Text.Json";

    /// <summary>MessagePack-CSharp's default options (StandardResolver, generic objects as
    /// Dictionary&lt;object, object&gt; / object[]); MaximumObjectGraphDepth 500 takes nest(128).</summary>
    public static readonly MessagePackSerializerOptions MpcOptions = MessagePackSerializerOptions.Standard;

    /// <summary>Nerdbank.MessagePack with its defaults but a depth limit of 1024 (its default,
    /// 64, refuses W4's nest(128)), and its optional converter for values declared `object`
    /// (generic trees: written by their runtime type, read as primitives, maps and arrays).</summary>
    public static readonly NB.MessagePackSerializer NbSerializer = NB.OptionalConverters.WithObjectConverter(new NB.MessagePackSerializer
    {
        StartingContext = new NB.SerializationContext { MaxDepth = 1024 },
    });

    static readonly JsonSerializerOptions StjOptions = new() { MaxDepth = 1024 };
    static readonly JsonSerializerSettings JsonNetSettings = new() { MaxDepth = 1024 };

    /// <summary>The data of a workload (but W1's and W2's, below), made on first use and released once
    /// the last of its cases has been timed (Program.Main): every full collection (one before
    /// each repetition) walks the live objects, and with W3's 100,000 maps and their trees
    /// kept to the end each one cost ~0.25 s (loaded VM), more than the repetition after
    /// it.</summary>
    public sealed class Section
    {
        readonly List<Action> resets = new();
        public void Add(Action reset) => resets.Add(reset);
        public void Release() => resets.ForEach(r => r());
    }

    // The section being declared: Lazy and Reused register their reset in it, Add gives it to
    // its cells.
    static Section? current;

    static Func<T> Lazy<T>(Func<T> f) where T : class
    {
        T? v = null;
        current?.Add(() => v = null);
        return () => v ??= f();
    }

    static byte[] Written(ArrayBufferWriter<byte> o) => o.WrittenSpan.ToArray();

    /// <summary>The output of a timed W1 / W2 / W3 write: one buffer per cell, allocated once
    /// with room for the whole output (mpk's reference size) and emptied before each pass
    /// (ResetWrittenCount), as mpk_bench's write_implicit does. The verification writes into
    /// a new, growing buffer (LowLevel.NewOutput) instead.</summary>
    static Func<ArrayBufferWriter<byte>> Reused(Func<byte[]> reference)
    {
        ArrayBufferWriter<byte>? o = null;
        current?.Add(() => o = null);
        return () =>
        {
            o ??= new ArrayBufferWriter<byte>(reference().Length + 64);
            o.ResetWrittenCount();
            return o;
        };
    }

    /// <summary>Encode check: its own bytes decode back to the data (its own decoder), then
    /// compared with mpk's reference bytes.</summary>
    static Verdict EncodeCheck(byte[] mine, byte[] reference, Func<byte[], bool> decodesBack, string how = "")
    {
        if (!decodesBack(mine)) return new Verdict("wrong_values", "its own bytes do not decode to the data", mine.Length);
        if (mine.AsSpan().SequenceEqual(reference)) return new Verdict("same_bytes", "same bytes as mpk" + how, mine.Length);
        return new Verdict("different_bytes", "", mine.Length, mine);
    }

    static Verdict DecodeCheck(bool same, string how = "") => same
        ? new Verdict("same_values", "decodes mpk's bytes to the same values" + how)
        : new Verdict("wrong_values", "decodes mpk's bytes to other values" + how);

    static Verdict JsonCheck(bool same, long size) => same
        ? new Verdict("same_values", "JSON text (no MessagePack bytes to compare); round trip gives the same values", size)
        : new Verdict("wrong_values", "JSON round trip changes the values");

    // Generic trees through each library's generic API.
    static byte[] MpcEncode(object? v) => MpcSerializer.Serialize<object?>(v, MpcOptions);
    static object? MpcDecode(byte[] b) => MpcSerializer.Deserialize<object?>(b, MpcOptions);
    static byte[] NbEncode(object? v) => NbSerializer.Serialize<object?, Witness>(v);
    static object? NbDecode(byte[] b)
    {
        var r = new NB.MessagePackReader(b);
        return NbSerializer.DeserializePrimitives(ref r);
    }
    static string JsonNetEncode(object? v) => JsonConvert.SerializeObject(v, JsonNetSettings);
    static JToken JsonNetDecode(string s)
    {
        using var r = new JsonTextReader(new StringReader(s)) { MaxDepth = 1024 };
        return JToken.ReadFrom(r);
    }
    static byte[] StjEncode(object? v) => StjSerializer.SerializeToUtf8Bytes(v, StjOptions);
    static JsonElement StjDecode(byte[] b) => StjSerializer.Deserialize<JsonElement>(b, StjOptions);

    public static List<Cell> All(string refDir, bool quick)
    {
        var cells = new List<Cell>();
        Func<byte[]> Ref(string w, string c) => Lazy(() => File.ReadAllBytes(Path.Combine(refDir, w, c + ".msgpack")));
        void Add(string w, string c, string impl, string unit, long units, Func<long> op, Func<Verdict> verify) =>
            cells.Add(new Cell(w, c, impl, unit, units, op, verify, current));

        // --- W1 small_fields: the low-level writer and reader ------------------------------
        // W1's and W2's data are kept to the end (no section): W2's references and outputs,
        // ~500 MB of byte arrays, and W1's million records cost a collection ~20 ms, and they
        // keep the runtime's budget for large objects where the reference runs had it.
        // Released, the cells that allocate large objects ran 15-100x slower, a full
        // collection every few operations (W2 bin_1m_read_copy 22x with W1's released alone;
        // docs/investigations.md, "Default mode").
        current = null;
        int values = Data.Values(quick);
        var w1 = Lazy(() => Data.SmallFields(values));
        var w1ref = Ref("small_fields", "stream");
        foreach (var impl in new[] { Mpc, Nb })
        {
            bool mpc = impl == Mpc;
            Func<ArrayBufferWriter<byte>, ArrayBufferWriter<byte>> writeInto = mpc
                ? o => { var w = new MpcWriter(o); LowLevel.WriteFields(ref w, w1()); return o; }
                : o => { var w = new NbWriter(o); LowLevel.WriteFields(ref w, w1()); return o; };
            Func<byte[]> write = () => Written(writeInto(LowLevel.NewOutput()));
            var reused = Reused(w1ref);
            Func<byte[], SmallRecord[]?, (long, bool)> typed = mpc
                ? (b, chk) => { var r = new MpcReader(b); long s = LowLevel.ReadTyped(ref r, chk, out bool ok); return (s, ok); }
                : (b, chk) => { var r = new NbReader(b); long s = LowLevel.ReadTyped(ref r, chk, out bool ok); return (s, ok); };
            Func<byte[], SmallRecord[]?, (long, bool)> generic = mpc
                ? (b, chk) => { var r = new MpcReader(b); long s = LowLevel.ReadGeneric(ref r, chk, out bool ok); return (s, ok); }
                : (b, chk) => { var r = new NbReader(b); long s = LowLevel.ReadGeneric(ref r, chk, out bool ok); return (s, ok); };
            Func<byte[], long> skip = mpc
                ? b => { var r = new MpcReader(b); return LowLevel.SkipAll(ref r); }
                : b => { var r = new NbReader(b); return LowLevel.SkipAll(ref r); };
            // Written into a new ArrayBufferWriter (64 KiB, growing), returned as its span's length.
            Add("small_fields", "write_implicit", impl, "field", values, () => writeInto(reused()).WrittenCount,
                () => EncodeCheck(write(), w1ref(), b => generic(b, w1()).Item2, " (MessagePackWriter: Write(long), Write(double), WriteString(UTF-8))"));
            Add("small_fields", "read_typed", impl, "field", values, () => typed(w1ref(), null).Item1,
                () => DecodeCheck(typed(w1ref(), w1()).Item2, " (MessagePackReader: ReadInt64, ReadDouble, ReadString, as the schema says)"));
            Add("small_fields", "read_generic", impl, "field", values, () => generic(w1ref(), null).Item1,
                () => DecodeCheck(generic(w1ref(), w1()).Item2, " (MessagePackReader: NextMessagePackType, then the read it names)"));
            Add("small_fields", "skip", impl, "field", values, () => skip(w1ref()), () =>
            {
                long n = skip(w1ref());
                return n == values ? new Verdict("same_values", $"skips exactly {n} values of mpk's bytes (MessagePackReader.Skip)")
                    : new Verdict("wrong_values", $"skipped {n} values instead of {values}");
            });
        }

        // --- W2 strings_binary ----------------------------------------------------------------
        foreach (var c in Data.StringsBinary(quick))
        {
            var r = Ref("strings_binary", c.Name);
            foreach (var impl in new[] { Mpc, Nb })
            {
                bool mpc = impl == Mpc;
                Func<ArrayBufferWriter<byte>, bool, ArrayBufferWriter<byte>> writeInto = mpc
                    ? (o, s16) => { var w = new MpcWriter(o); LowLevel.WriteRepeated(ref w, c, s16); return o; }
                    : (o, s16) => { var w = new NbWriter(o); LowLevel.WriteRepeated(ref w, c, s16); return o; };
                Func<Data.W2Case, bool, byte[]> write = (_, s16) => Written(writeInto(LowLevel.NewOutput(), s16));
                var reused = Reused(r);
                Func<byte[], LowLevel.W2Read, object?, long> read = mpc
                    ? (b, how, exp) => { var rd = new MpcReader(b); return LowLevel.ReadRepeated(ref rd, how, c.IsText, exp); }
                    : (b, how, exp) => { var rd = new NbReader(b); return LowLevel.ReadRepeated(ref rd, how, c.IsText, exp); };
                Verdict ReadVerdict(LowLevel.W2Read how, string label, byte[] input)
                {
                    long n = read(input, how, c.Payload);
                    return n == c.Count ? new Verdict("same_values", $"decodes mpk's bytes to the same values ({label})")
                        : new Verdict("wrong_values", $"decodes mpk's bytes to other values ({n} values)");
                }
                bool DecodesBack(byte[] b) => read(b, LowLevel.W2Read.Copy, c.Payload) == c.Count;
                string wlabel = c.IsText ? " (WriteString of the UTF-8 bytes)" : " (Write(ReadOnlySpan<byte>))";
                Add("strings_binary", c.Name + "_write", impl, "value", c.Count, () => writeInto(reused(), false).WrittenCount,
                    () => EncodeCheck(write(c, false), r(), DecodesBack, wlabel));
                if (c.IsText)
                {
                    Add("strings_binary", c.Name + "_read_view", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.View, null),
                        () => ReadVerdict(LowLevel.W2Read.View, "zero-copy: ReadStringSequence, a view of the UTF-8 bytes in the input; not validated", r()));
                    Add("strings_binary", c.Name + "_read_view_utf8", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.ViewUtf8, null),
                        () => ReadVerdict(LowLevel.W2Read.ViewUtf8, "zero-copy view, validated by System.Text.Unicode.Utf8.IsValid", r()));
                    Add("strings_binary", c.Name + "_read_copy", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.Copy, null),
                        () => ReadVerdict(LowLevel.W2Read.Copy, "ReadString into a .NET string (UTF-16); it " + Utf8Policy(mpc), r()));
                    Add("strings_binary", c.Name + "_read_copy_utf8", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.CopyUtf8, null),
                        () => ReadVerdict(LowLevel.W2Read.CopyUtf8, "the view decoded into a .NET string by a UTF8Encoding that throws on invalid UTF-8", r()));
                }
                else
                {
                    Add("strings_binary", c.Name + "_read_view", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.View, null),
                        () => ReadVerdict(LowLevel.W2Read.View, "zero-copy: ReadBytes, a view into the input", r()));
                    Add("strings_binary", c.Name + "_read_copy", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.Copy, null),
                        () => ReadVerdict(LowLevel.W2Read.Copy, "ReadBytes copied into a new byte[]", r()));
                }
                if (c.Name == "utf8_1k")
                {
                    // UTF-16: the same text held in a .NET string, written (transcoded) with
                    // Write(string) and read back into a .NET string: the C++ utf16_1k cells' peer.
                    Add("strings_binary", "utf16_1k_write", impl, "value", c.Count, () => writeInto(reused(), true).WrittenCount,
                        () => EncodeCheck(write(c, true), r(), DecodesBack, " (Write(string): a .NET string, UTF-16, transcoded)"));
                    Add("strings_binary", "utf16_1k_read", impl, "value", c.Count, () => read(r(), LowLevel.W2Read.Copy, null),
                        () => ReadVerdict(LowLevel.W2Read.Copy, "ReadString into a .NET string (UTF-16); it " + Utf8Policy(mpc), r()));
                }
            }
        }

        // --- W3 flat_maps: typed class (map mode) and the generic form -------------------------
        current = new Section();
        int maps = Data.Maps(quick);
        var w3 = Lazy(() => Data.FlatMaps(maps));
        var w3trees = Lazy(() => w3().Select(m => (object?)m.Tree()).ToArray());
        var w3ref = Ref("flat_maps", "stream");
        ArrayBufferWriter<byte> MpcWriteMaps(ArrayBufferWriter<byte> o)
        {
            var w = new MessagePackWriter(o);
            foreach (var m in w3()) MpcSerializer.Serialize(ref w, m, MpcOptions);
            w.Flush();
            return o;
        }
        ArrayBufferWriter<byte> NbWriteMaps(ArrayBufferWriter<byte> o)
        {
            var w = new NB.MessagePackWriter(o);
            foreach (var m in w3()) NbSerializer.Serialize(ref w, m);
            w.Flush();
            return o;
        }
        var w3reused = Reused(w3ref);
        long MpcReadMaps(byte[] b, bool dynamic, List<object?>? keep)
        {
            var rd = new MessagePackReader(b);
            long n = 0;
            while (!rd.End)
            {
                object? v = dynamic ? MpcSerializer.Deserialize<object?>(ref rd, MpcOptions) : MpcSerializer.Deserialize<FlatMap>(ref rd, MpcOptions);
                keep?.Add(v is FlatMap f ? f.Tree() : v);
                n++;
            }
            return n;
        }
        long NbReadMaps(byte[] b, bool dynamic, List<object?>? keep)
        {
            var rd = new NB.MessagePackReader(b);
            long n = 0;
            while (!rd.End)
            {
                object? v = dynamic ? NbSerializer.DeserializePrimitives(ref rd) : NbSerializer.Deserialize<FlatMap>(ref rd);
                keep?.Add(v is FlatMap f ? f.Tree() : v);
                n++;
            }
            return n;
        }
        foreach (var impl in new[] { Mpc, Nb })
        {
            Func<ArrayBufferWriter<byte>, ArrayBufferWriter<byte>> writeInto = impl == Mpc ? MpcWriteMaps : NbWriteMaps;
            Func<byte[]> write = () => Written(writeInto(LowLevel.NewOutput()));
            Func<byte[], bool, List<object?>?, long> read = impl == Mpc ? MpcReadMaps : NbReadMaps;
            bool ReadsAs(byte[] b, bool dynamic)
            {
                var got = new List<object?>();
                read(b, dynamic, got);
                return Values.Same(w3trees(), got.ToArray());
            }
            string api = impl == Mpc ? "MessagePackSerializer" : "MessagePackSerializer (PolyType shapes)";
            Add("flat_maps", "write", impl, "map", maps, () => writeInto(w3reused()).WrittenCount,
                () => EncodeCheck(write(), w3ref(), b => ReadsAs(b, false), $" (typed class FlatMap, map mode, {api}.Serialize per map)"));
            Add("flat_maps", "read_typed", impl, "map", maps, () => read(w3ref(), false, null),
                () => DecodeCheck(ReadsAs(w3ref(), false), " (typed class FlatMap)"));
            Add("flat_maps", "read_dynamic", impl, "map", maps, () => read(w3ref(), true, null),
                () => DecodeCheck(ReadsAs(w3ref(), true), impl == Mpc ? " (Deserialize<object>: Dictionary<object, object>)" : " (DeserializePrimitives)"));
        }

        // --- W4 deep_nesting -----------------------------------------------------------------
        current = new Section();
        foreach (int n in Data.NestDepths)
        {
            var value = Lazy(() => Data.Nest(n));
            var r = Ref("deep_nesting", "nest_" + n);
            GenericCells(Add, "deep_nesting", "build_" + n, "dom_" + n, "structure", value, r, json: true);
        }

        // --- W5 typed_objects: typed classes, map mode and array mode -----------------------------
        current = new Section();
        var typedObjects = Typed.Objects();
        var trees = Data.TypedObjects();
        foreach (var (name, obj) in typedObjects)
        {
            var r = Ref("typed_objects", name);
            object? tree = trees[name];
            TypedCells(Add, name, obj, tree, r);
        }

        // --- W6 lua_bench: pack then unpack, generic ---------------------------------------------
        current = new Section();
        foreach (var (name, v) in Data.LuaBench())
        {
            var r = Ref("lua_bench", name);
            foreach (var impl in new[] { Mpc, Nb })
            {
                Func<object?, byte[]> enc = impl == Mpc ? MpcEncode : NbEncode;
                Func<byte[], object?> dec = impl == Mpc ? MpcDecode : NbDecode;
                Add("lua_bench", name, impl, "op", 1, () => dec(enc(v)) is null ? 0 : 1, () =>
                {
                    if (!Values.Same(v, dec(r()))) return new Verdict("wrong_values", "decodes mpk's bytes to other values");
                    var e = EncodeCheck(enc(v), r(), b => Values.Same(v, dec(b)));
                    return e.Kind == "same_bytes" ? e with { Text = "same bytes as mpk; decodes mpk's bytes to the same values" } : e;
                });
            }
        }

        // --- W7 documents, and the plain-map lists of the records case ---------------------------
        current = new Section();
        foreach (var docs in new[] { Data.Documents(), Data.RecordsLists() })
            foreach (var (name, v) in docs)
                GenericCells(Add, "documents", "encode_" + name, "decode_" + name, "op", () => v, Ref("documents", name),
                             json: !Data.HasBytes(v));

        current = new Section();
        // W7 stream: a typed message class written message by message to a Stream, read back
        // from a Stream that delivers 64 KiB per Read.
        int count = Data.StreamCount(quick);
        var sref = Ref("documents", "stream");
        var msg = StreamMessage.Make();
        object? msgTree = Data.StreamMessage();
        Func<byte[]> mpcWrite = () =>
        {
            var ms = new MemoryStream();
            for (int k = 0; k < count; k++) MpcSerializer.Serialize(ms, msg, MpcOptions);
            return ms.ToArray();
        };
        Func<byte[]> nbWrite = () =>
        {
            var ms = new MemoryStream();
            for (int k = 0; k < count; k++) NbSerializer.Serialize(ms, msg);
            return ms.ToArray();
        };
        Func<byte[], Func<StreamMessage, bool>?, long> mpcRead = (b, check) =>
        {
            using var sr = new MessagePackStreamReader(new ChunkedStream(b, Data.StreamChunk));
            long n = 0;
            while (true)
            {
                var t = sr.ReadAsync(CancellationToken.None);
                var seq = t.IsCompletedSuccessfully ? t.Result : t.AsTask().GetAwaiter().GetResult();
                if (seq is null) break;
                var m = MpcSerializer.Deserialize<StreamMessage>(seq.Value, MpcOptions);
                if (check is not null && !check(m)) return -1;
                n++;
            }
            return n;
        };
        Func<byte[], Func<StreamMessage, bool>?, long> nbRead = (b, check) =>
        {
            var e = NbSerializer.DeserializeEnumerableAsync<StreamMessage>(new ChunkedStream(b, Data.StreamChunk)).GetAsyncEnumerator();
            long n = 0;
            while (true)
            {
                var t = e.MoveNextAsync();
                if (!(t.IsCompletedSuccessfully ? t.Result : t.AsTask().GetAwaiter().GetResult())) break;
                if (check is not null && (e.Current is null || !check(e.Current))) return -1;
                n++;
            }
            e.DisposeAsync().AsTask().GetAwaiter().GetResult();
            return n;
        };
        bool IsMessage(StreamMessage m) => Values.Same(msgTree, m.Tree());
        foreach (var impl in new[] { Mpc, Nb })
        {
            var write = impl == Mpc ? mpcWrite : nbWrite;
            var read = impl == Mpc ? mpcRead : nbRead;
            string api = impl == Mpc
                ? "typed StreamMessage; MessagePackSerializer.Serialize(Stream) per message / MessagePackStreamReader.ReadAsync then Deserialize"
                : "typed StreamMessage; MessagePackSerializer.Serialize(Stream) per message / DeserializeEnumerableAsync(Stream)";
            Add("documents", "encode_stream", impl, "op", count, () => write().Length,
                () => EncodeCheck(write(), sref(), b => read(b, IsMessage) == count, $" ({api})"));
            Add("documents", "decode_stream", impl, "op", count, () => read(sref(), null), () => read(sref(), IsMessage) == count
                ? new Verdict("same_values", $"reads mpk's stream, fed in 64 KiB chunks, to the same {count} messages ({api}; consumed synchronously)")
                : new Verdict("wrong_values", "reads mpk's stream to other messages"));
        }
        current = null;
        return cells;
    }

    static string? mpcPolicy, nbPolicy;

    /// <summary>What ReadString does with bytes that are not UTF-8: asked of the library.</summary>
    static string Utf8Policy(bool mpc)
    {
        byte[] bad = [0xa2, 0xff, 0xfe];
        string Ask(Func<string?> read)
        {
            try { return read() is string s && s.Contains('\uFFFD') ? "replaces invalid UTF-8 by U+FFFD (does not refuse it)" : "does not refuse invalid UTF-8"; }
            catch (Exception) { return "refuses invalid UTF-8"; }
        }
        return mpc ? mpcPolicy ??= Ask(() => new MessagePackReader(bad).ReadString())
                   : nbPolicy ??= Ask(() => new NB.MessagePackReader(bad).ReadString());
    }

    /// <summary>Encode and decode cells of one generic value (W4, W7): both MessagePack
    /// libraries through their generic APIs, and the JSON baselines when the value has no binary.</summary>
    static void GenericCells(Action<string, string, string, string, long, Func<long>, Func<Verdict>> add, string workload,
                             string encCase, string decCase, string unit, Func<object?> value, Func<byte[]> r, bool json)
    {
        foreach (var impl in new[] { Mpc, Nb })
        {
            Func<object?, byte[]> enc = impl == Mpc ? MpcEncode : NbEncode;
            Func<byte[], object?> dec = impl == Mpc ? MpcDecode : NbDecode;
            string how = impl == Mpc ? " (Serialize<object> / Deserialize<object>)" : " (Serialize<object> with its object converter / DeserializePrimitives)";
            add(workload, encCase, impl, unit, 1, () => enc(value()).Length,
                () => EncodeCheck(enc(value()), r(), b => Values.Same(value(), dec(b)), how));
            add(workload, decCase, impl, unit, 1, () => dec(r()) is null ? 0 : 1, () => DecodeCheck(Values.Same(value(), dec(r())), how));
        }
        if (!json) return;
        var netText = Lazy(() => JsonNetEncode(value()));
        var stjText = Lazy(() => StjEncode(value()));
        add(workload, encCase, JsonNet, unit, 1, () => JsonNetEncode(value()).Length,
            () => JsonCheck(Values.Same(value(), Values.FromJToken(JsonNetDecode(netText())), json: true), Encoding.UTF8.GetByteCount(netText())));
        add(workload, decCase, JsonNet, unit, 1, () => JsonNetDecode(netText()).Type == JTokenType.None ? 0 : 1,
            () => JsonCheck(Values.Same(value(), Values.FromJToken(JsonNetDecode(netText())), json: true), Encoding.UTF8.GetByteCount(netText())));
        add(workload, encCase, Stj, unit, 1, () => StjEncode(value()).Length,
            () => JsonCheck(Values.Same(value(), Values.FromJsonElement(StjDecode(stjText())), json: true), stjText().Length));
        add(workload, decCase, Stj, unit, 1, () => (int)StjDecode(stjText()).ValueKind,
            () => JsonCheck(Values.Same(value(), Values.FromJsonElement(StjDecode(stjText())), json: true), stjText().Length));
    }

    /// <summary>JSON of an array-mode object: JSON has no positional object mode, so (as in
    /// the other languages) the object is the JSON array of its fields, written from the
    /// generic tree and read into the JSON library's DOM.</summary>
    static (Func<string>, Func<string, object?>, Func<byte[]>, Func<byte[], object?>) PositionalJson(object? tree) =>
        (() => JsonNetEncode(tree), s => Values.FromJToken(JsonNetDecode(s)),
         () => StjEncode(tree), b => Values.FromJsonElement(StjDecode(b)));

    /// <summary>The generic tree of what a W5 JSON decode returned (typed, or a tree already).</summary>
    static object? TreeOf(object? v) => v?.GetType() == typeof(object?[]) || v is Dictionary<string, object?> ? v : Typed.Tree(v);  // not "is object?[]": a Beer[] is one too

    /// <summary>W5: serialize, deserialize and skip of one typed object, both MessagePack
    /// libraries (typed classes: map mode has string keys, array mode integer keys), and the
    /// JSON baselines (typed for the map-mode objects and the arrays, positional arrays for
    /// the array-mode objects).</summary>
    static void TypedCells(Action<string, string, string, string, long, Func<long>, Func<Verdict>> add, string name, object obj,
                           object? tree, Func<byte[]> r)
    {
        const string w = "typed_objects";
        Func<byte[]> mpcEnc;
        Func<byte[], object?> mpcDec, nbDec;
        Func<byte[]> nbEnc;
        Func<string> netEnc;
        Func<string, object?> netDec;
        Func<byte[]> stjEnc;
        Func<byte[], object?> stjDec;
        switch (obj)
        {
            case long[] a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<long[]>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize<long[], Witness>(a); nbDec = b => NbSerializer.Deserialize<long[], Witness>(b);
                netEnc = () => JsonConvert.SerializeObject(a); netDec = s => JsonConvert.DeserializeObject<long[]>(s);
                stjEnc = () => StjSerializer.SerializeToUtf8Bytes(a); stjDec = b => StjSerializer.Deserialize<long[]>(b);
                break;
            case double[] a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<double[]>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize<double[], Witness>(a); nbDec = b => NbSerializer.Deserialize<double[], Witness>(b);
                netEnc = () => JsonConvert.SerializeObject(a); netDec = s => JsonConvert.DeserializeObject<double[]>(s);
                stjEnc = () => StjSerializer.SerializeToUtf8Bytes(a); stjDec = b => StjSerializer.Deserialize<double[]>(b);
                break;
            case Beer a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<Beer>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize(a); nbDec = b => NbSerializer.Deserialize<Beer>(b);
                netEnc = () => JsonConvert.SerializeObject(a); netDec = s => JsonConvert.DeserializeObject<Beer>(s);
                stjEnc = () => StjSerializer.SerializeToUtf8Bytes(a); stjDec = b => StjSerializer.Deserialize<Beer>(b);
                break;
            case Beer[] a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<Beer[]>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize<Beer[], Witness>(a); nbDec = b => NbSerializer.Deserialize<Beer[], Witness>(b);
                netEnc = () => JsonConvert.SerializeObject(a); netDec = s => JsonConvert.DeserializeObject<Beer[]>(s);
                stjEnc = () => StjSerializer.SerializeToUtf8Bytes(a); stjDec = b => StjSerializer.Deserialize<Beer[]>(b);
                break;
            case BeerArray a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<BeerArray>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize(a); nbDec = b => NbSerializer.Deserialize<BeerArray>(b);
                (netEnc, netDec, stjEnc, stjDec) = PositionalJson(a.Tree());
                break;
            case BeerArray[] a:
                mpcEnc = () => MpcSerializer.Serialize(a, MpcOptions); mpcDec = b => MpcSerializer.Deserialize<BeerArray[]>(b, MpcOptions);
                nbEnc = () => NbSerializer.Serialize<BeerArray[], Witness>(a); nbDec = b => NbSerializer.Deserialize<BeerArray[], Witness>(b);
                (netEnc, netDec, stjEnc, stjDec) = PositionalJson(Typed.Tree(a));
                break;
            default: throw new ArgumentException(name);
        }
        foreach (var (impl, enc, dec) in new[] { (Mpc, mpcEnc, mpcDec), (Nb, nbEnc, nbDec) })
        {
            string how = name.Contains("array") && obj is not long[] && obj is not double[] ? " (typed class, array mode: integer keys)"
                : obj is long[] or double[] ? " (typed array)" : " (typed class, map mode: string keys)";
            add(w, "serialize_" + name, impl, "op", 1, () => enc().Length,
                () => EncodeCheck(enc(), r(), b => Values.Same(tree, Typed.Tree(dec(b))), how));
            add(w, "deserialize_" + name, impl, "op", 1, () => dec(r()) is null ? 0 : 1,
                () => DecodeCheck(Values.Same(tree, Typed.Tree(dec(r()))), how));
            Func<byte[], long> skip = impl == Mpc
                ? b => { var rd = new MessagePackReader(b); rd.Skip(); return rd.Consumed; }
                : b => { var rd = new NbReader(b); rd.Skip(); return 1; };
            add(w, "skip_" + name, impl, "op", 1, () => skip(r()), () =>
            {
                var rd = new MessagePackReader(r());
                rd.Skip();
                return rd.End && skip(r()) > 0 ? new Verdict("same_values", "skips mpk's bytes to their exact end (MessagePackReader.Skip)")
                    : new Verdict("wrong_values", "does not skip to the end of mpk's bytes");
            });
        }
        string netText = netEnc();
        byte[] stjText = stjEnc();
        add(w, "serialize_" + name, JsonNet, "op", 1, () => netEnc().Length,
            () => JsonCheck(Values.Same(tree, TreeOf(netDec(netEnc())), json: true), Encoding.UTF8.GetByteCount(netText)));
        add(w, "deserialize_" + name, JsonNet, "op", 1, () => netDec(netText) is null ? 0 : 1,
            () => JsonCheck(Values.Same(tree, TreeOf(netDec(netText)), json: true), Encoding.UTF8.GetByteCount(netText)));
        add(w, "serialize_" + name, Stj, "op", 1, () => stjEnc().Length,
            () => JsonCheck(Values.Same(tree, TreeOf(stjDec(stjEnc())), json: true), stjText.Length));
        add(w, "deserialize_" + name, Stj, "op", 1, () => stjDec(stjText) is null ? 0 : 1,
            () => JsonCheck(Values.Same(tree, TreeOf(stjDec(stjText)), json: true), stjText.Length));
    }
}

/// <summary>A read-only stream over bytes that returns at most <c>chunk</c> bytes per Read:
/// the 64 KiB chunks in which every harness feeds W7's stream to its reader.</summary>
public sealed class ChunkedStream(byte[] data, int chunk) : Stream
{
    int pos;
    public override bool CanRead => true;
    public override bool CanSeek => false;
    public override bool CanWrite => false;
    public override long Length => data.Length;
    public override long Position { get => pos; set => throw new NotSupportedException(); }
    public override void Flush() { }
    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));
    public override int Read(Span<byte> buffer)
    {
        int n = Math.Min(Math.Min(buffer.Length, chunk), data.Length - pos);
        data.AsSpan(pos, n).CopyTo(buffer);
        pos += n;
        return n;
    }
    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken ct = default) => new(Read(buffer.Span));
    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken ct) => Task.FromResult(Read(buffer, offset, count));
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
    public override void SetLength(long value) => throw new NotSupportedException();
    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
