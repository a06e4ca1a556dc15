// Generator test (`--check-generators`): the canonical encoding of every case this harness
// generates must have the digest of mpk's reference encoding (digests.csv, FNV-1a 64).
// The canonical encoding is written through MessagePack-CSharp's low-level writer (every
// integer in its smallest form, doubles as float64, maps in key order, as mpk writes them):
// every case compares by digest (the record extension
// cases are skipped: no .NET library has msgpackr's records).
using System.Buffers;

namespace MpkBench;

public static class Generators
{
    /// <summary>FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3), as
    /// bench/support/digest.hpp and every harness.</summary>
    public static ulong Fnv1a64(ReadOnlySpan<byte> data)
    {
        ulong h = 0xcbf29ce484222325;
        foreach (byte b in data) h = (h ^ b) * 0x100000001b3;
        return h;
    }

    /// <summary>The canonical encoding of a generic value through MessagePack-CSharp's
    /// low-level writer, whose Write(long) picks the smallest form (its generic
    /// Serialize&lt;object&gt; writes a long as int 64 whatever its value).</summary>
    static void WriteTree(ref MessagePack.MessagePackWriter w, object? v)
    {
        switch (v)
        {
            case null: w.WriteNil(); break;
            case bool b: w.Write(b); break;
            case long l: w.Write(l); break;
            case double d: w.Write(d); break;
            case string s: w.Write(s); break;
            case byte[] b: w.Write(b); break;
            case object?[] a:
                w.WriteArrayHeader(a.Length);
                foreach (var x in a) WriteTree(ref w, x);
                break;
            case Dictionary<string, object?> m:
                w.WriteMapHeader(m.Count);
                foreach (var (k, x) in m) { w.Write(k); WriteTree(ref w, x); }
                break;
            default: throw new ArgumentException("WriteTree: " + v.GetType());
        }
    }

    static byte[] Stream(IEnumerable<object?> values)
    {
        var o = new ArrayBufferWriter<byte>();
        var w = new MessagePack.MessagePackWriter(o);
        foreach (var v in values) WriteTree(ref w, v);
        w.Flush();
        return o.WrittenSpan.ToArray();
    }

    static byte[] One(object? v) => Stream([v]);

    public static int Check(string refDir, bool quick)
    {
        var docs = Data.Documents();
        foreach (var (k, v) in Data.RecordsLists()) docs[k] = v;
        var gens = new Dictionary<string, Dictionary<string, object?>>
        {
            ["typed_objects"] = Data.TypedObjects(), ["lua_bench"] = Data.LuaBench(), ["documents"] = docs,
            ["deep_nesting"] = Data.NestDepths.ToDictionary(n => "nest_" + n, n => (object?)Data.Nest(n)),
        };
        var w2 = Data.StringsBinary(quick).ToDictionary(c => c.Name);
        int bad = 0, checkedCount = 0;
        foreach (var line in File.ReadAllLines(Path.Combine(refDir, "digests.csv")).Skip(1))
        {
            var f = line.Split(',');
            string w = f[0], c = f[1], h = f[3];
            byte[] data;
            if (w == "small_fields")
                data = Stream(Data.SmallFields(Data.Values(quick)).SelectMany(r => Data.Fields(r)));
            else if (w == "flat_maps")
                data = Stream(Data.FlatMaps(Data.Maps(quick)).Select(m => (object?)m.Tree()));
            else if (w == "strings_binary" && w2.TryGetValue(c, out var s))
                data = Stream(Enumerable.Repeat(s.Payload, s.Count));
            else if (w == "documents" && c == "stream")
                data = Stream(Enumerable.Repeat((object?)Data.StreamMessage(), Data.StreamCount(quick)));
            else if (gens.TryGetValue(w, out var g) && g.TryGetValue(c, out var v))
                data = One(v);
            else if (w == "documents" && c.EndsWith("_records"))
            {
                Console.WriteLine($"SKIP {w}/{c}: no .NET implementation has the record extension");
                continue;
            }
            else
            {
                Console.WriteLine($"MISSING {w}/{c}: no generator");
                bad++;
                continue;
            }
            checkedCount++;
            string got = Fnv1a64(data).ToString("x16");
            if (got != h)
            {
                Console.WriteLine($"DIFF {w}/{c}: {got}, mpk {h}; starts {Convert.ToHexString(data.AsSpan(0, Math.Min(24, data.Length)))}");
                bad++;
            }
            else Console.WriteLine($"OK {w}/{c} {got}");
        }
        Console.WriteLine($"{checkedCount} cases checked, {bad} failed");
        return bad > 0 ? 1 : 0;
    }
}
