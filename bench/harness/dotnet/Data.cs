// The workloads' data, generated exactly as BENCHMARKS.md defines it (the same definitions as
// bench/gen/mpk_gen.cpp and every other harness; docs/benchmark-suite.md, "Reconstructed data").
// Generic values are .NET objects: long, double, string, byte[], bool, null, object?[] and
// Dictionary<string, object?> (which enumerates in insertion order: the map's key order).
using System.Text;

namespace MpkBench;

/// <summary>One W1 record: the 8 fields of BENCHMARKS.md W1.</summary>
public struct SmallRecord
{
    public long F0, F1, F2, F3, F4;
    public double F5, F6;
    public string F7;
    public byte[] F7Utf8;
}

public static class Data
{
    public const string Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    public const string Utf8Unit = "h\u00e9llo w\u00f6rld \u2713 ";
    public static readonly int[] NestDepths = [1, 2, 4, 8, 16, 32, 64, 128];
    public const int StreamChunk = 65536;

    public static int Values(bool quick) => quick ? 20000 : 1000000;
    public static int Maps(bool quick) => quick ? 2000 : 100000;
    public static int StreamCount(bool quick) => quick ? 20000 : 1000000;

    public static SmallRecord[] SmallFields(int values)
    {
        var recs = new SmallRecord[values / 8];
        var f7 = new string[1000];
        var f7b = new byte[1000][];
        for (int n = 0; n < 1000; n++)
        {
            f7[n] = "field" + n.ToString("D3");
            f7b[n] = Encoding.UTF8.GetBytes(f7[n]);
        }
        for (int i = 0; i < recs.Length; i++)
        {
            recs[i] = new SmallRecord
            {
                F0 = i % 128, F1 = -(i % 1000) - 1, F2 = 40000 + i % 1000, F3 = -100000 - i,
                F4 = 5000000000L + i, F5 = i + 0.25, F6 = 1.0 / (i + 3), F7 = f7[i % 1000], F7Utf8 = f7b[i % 1000],
            };
        }
        return recs;
    }

    /// <summary>A W1 record's fields as generic values, in order.</summary>
    public static object?[] Fields(in SmallRecord r) => [r.F0, r.F1, r.F2, r.F3, r.F4, r.F5, r.F6, r.F7];

    public static FlatMap[] FlatMaps(int count)
    {
        var maps = new FlatMap[count];
        for (int i = 0; i < count; i++) maps[i] = FlatMap.Make(i);
        return maps;
    }

    public static string Ascii(int n)
    {
        var sb = new StringBuilder(n);
        while (sb.Length < n) sb.Append(Alphabet);
        return sb.ToString(0, n);
    }

    public static byte[] PatternBin(int n)
    {
        var b = new byte[n];
        for (int k = 0; k < n; k++) b[k] = (byte)((k * 31 + 7) & 0xff);
        return b;
    }

    /// <summary>Utf8Unit repeated, cut at the last whole character at or below n bytes.</summary>
    public static string Utf8Text(int n)
    {
        var sb = new StringBuilder();
        int bytes = 0;
        while (true)
        {
            foreach (var rune in Utf8Unit.EnumerateRunes())
            {
                if (bytes + rune.Utf8SequenceLength > n) return sb.ToString();
                bytes += rune.Utf8SequenceLength;
                sb.Append(rune.ToString());
            }
        }
    }

    /// <summary>W2: a payload (string or byte[]) and how many values of it each case writes:
    /// max(1, min(1,000,000, total / size)), total 32 MiB (256 KiB quick), as mpk_gen.</summary>
    public sealed record W2Case(string Name, object Payload, int Count)
    {
        public bool IsText => Payload is string;
        public byte[] Bytes => Payload as byte[] ?? Encoding.UTF8.GetBytes((string)Payload);
    }

    public static List<W2Case> StringsBinary(bool quick)
    {
        int total = quick ? 256 << 10 : 32 << 20;
        var payloads = new (string, object)[]
        {
            ("ascii_8", Ascii(8)), ("ascii_1k", Ascii(1024)), ("ascii_64k", Ascii(65536)),
            ("utf8_1k", Utf8Text(1024)), ("bin_1k", PatternBin(1024)), ("bin_1m", PatternBin(1 << 20)),
        };
        var list = new List<W2Case>();
        foreach (var (name, p) in payloads)
        {
            int size = p is string s ? Encoding.UTF8.GetByteCount(s) : ((byte[])p).Length;
            list.Add(new W2Case(name, p, Math.Max(1, Math.Min(1000000, total / size))));
        }
        return list;
    }

    public static object?[] Nest(int n)
    {
        object?[] v = [1L, 2L, 3L];
        for (int k = 1; k < n; k++) v = [1L, 2L, 3L, v];
        return v;
    }

    public static readonly string[] Sorts = ["pale", "amber", "dark", "stout", "porter"];

    /// <summary>W5 as generic values (the reference for every check): name -> value.</summary>
    public static Dictionary<string, object?> TypedObjects()
    {
        var d = new Dictionary<string, object?>
        {
            ["int_array"] = Enumerable.Range(0, 100).Select(k => (object?)(long)((k * 7919) % 65536 - 1000)).ToArray(),
            ["double_array"] = Enumerable.Range(0, 100).Select(k => (object?)(k * 1.1 + 0.5)).ToArray(),
        };
        foreach (var (mode, mapMode) in new[] { ("map", true), ("array", false) })
        {
            d["beer_" + mode] = BeerTree("Ale Brewery Lager", 4.5, mapMode);
            d["beer_list_" + mode] = Enumerable.Range(0, 10).Select(k => BeerTree("Ale " + k, 4.5 + k / 4.0, mapMode)).ToArray();
        }
        return d;
    }

    static object BeerTree(string brand, double alcohol, bool mapMode) => mapMode
        ? new Dictionary<string, object?> { ["brand"] = brand, ["alcohol"] = alcohol, ["brewery"] = "Brew Co", ["sort"] = Sorts.Cast<object?>().ToArray() }
        : new object?[] { brand, alcohol, "Brew Co", Sorts.Cast<object?>().ToArray() };

    public static Dictionary<string, object?> LuaBench()
    {
        var d = new Dictionary<string, object?>
        {
            ["empty"] = Array.Empty<object?>(),
            ["iary1"] = new object?[] { 1L },
            ["iary10"] = Enumerable.Range(-5, 10).Select(k => (object?)(long)k).ToArray(),
        };
        foreach (int n in new[] { 100, 1000, 10000 })
            d["iary" + n] = Enumerable.Range(1, n).Select(i => (object?)(long)Math.Floor(i - n / 2.0)).ToArray();
        d["dary1"] = new object?[] { 1.5e35 };
        foreach (int n in new[] { 10, 100, 1000 })
            d["dary" + n] = Enumerable.Range(1, n).Select(i => (object?)(1.5e35 * i)).ToArray();
        d["str1"] = new object?[] { "a" };
        foreach (int n in new[] { 10, 100, 1000, 10000, 20000, 30000, 40000, 80000 })
            d["str" + n] = new string('a', n - 1) + "b";
        return d;
    }

    // Beware: Arr(x) with x an object?[] passes x itself as the params array.
    static object?[] Arr(params object?[] v) => v;

    static Dictionary<string, object?> MediumOrLarge(bool large)
    {
        int entries = large ? 1024 : 32;
        var doc = new Dictionary<string, object?>
        {
            ["unsigned"] = Enumerable.Range(0, 53).Select(k => (object?)(1L << k)).ToArray(),
            ["signed"] = Enumerable.Range(0, 53).Select(k => (object?)(-(1L << k))).ToArray(),
        };
        if (large) doc["bin"] = Arr(PatternBin(256), PatternBin(65536), PatternBin(1 << 20));
        doc["str"] = Arr("abc", new string('g', 32), new string('h', 256));
        doc["array"] = Arr(Arr(), Arr(1L, 2L, 3L), Arr("a", "b", "c"), Arr(Arr(1L), Arr(2L), Arr(3L)));
        var map = new Dictionary<string, object?>();
        for (int i = 0; i < entries; i++)
        {
            map[new string('a', i)] = new string('a', i);  // "" is replaced in place below, as in JavaScript
            map[new string('b', i)] = Enumerable.Repeat((byte)'b', i).ToArray();
        }
        doc["map"] = map;
        doc["nil"] = null;
        doc["bool"] = new Dictionary<string, object?> { ["true"] = true, ["false"] = false, ["both"] = Arr(true, false) };
        doc["undefined"] = Arr(null, true, false, null, null);
        return doc;
    }

    public static Dictionary<string, object?> Documents() => new()
    {
        ["tiny"] = new Dictionary<string, object?> { ["foo"] = 1L, ["bar"] = "abc" },
        ["small"] = new Dictionary<string, object?>
        {
            ["foo"] = 1L, ["bar"] = Arr(1L, 2L, 3L, 4L, "abc", "def"),
            ["foobar"] = new Dictionary<string, object?>
            {
                ["foo"] = true, ["bar"] = -2147483649L,
                ["foobar"] = new Dictionary<string, object?>
                {
                    ["foo"] = new byte[] { 1, 2, 3, 4, 5 }, ["bar"] = 1.5, ["foobar"] = Arr(true, false, "abcdefghijkmonpqrstuvwxyz"),
                },
            },
        },
        ["medium"] = MediumOrLarge(false),
        ["large"] = MediumOrLarge(true),
        ["example"] = new Dictionary<string, object?>
        {
            ["int0"] = 0L, ["int1"] = 1L, ["int1-"] = -1L, ["int8"] = 255L, ["int8-"] = -255L, ["int16"] = 256L,
            ["int16-"] = -256L, ["int32"] = 65536L, ["int32-"] = -65536L, ["nil"] = null, ["true"] = true,
            ["false"] = false, ["float"] = 0.5, ["float-"] = -0.5, ["string0"] = "", ["string1"] = "A",
            ["string4"] = "foobarbaz", ["string8"] = "Omnes viae Romam ducunt.", ["string16"] = Ascii(641),
            ["array0"] = Arr(), ["array1"] = Arr("foo"),
            ["array8"] = Enumerable.Range(0, 21).Select(k => (object?)(1L << k)).ToArray(),
            ["map0"] = new Dictionary<string, object?>(), ["map1"] = new Dictionary<string, object?> { ["foo"] = "bar" },
        },
    };

    /// <summary>W7 records, the plain-map lists: beer_list (W5, map mode) and map_list.</summary>
    public static Dictionary<string, object?> RecordsLists() => new()
    {
        ["beer_list_maps"] = TypedObjects()["beer_list_map"],
        ["map_list_maps"] = Enumerable.Range(0, 32).Select(i => (object?)new Dictionary<string, object?>
        {
            ["key"] = new string('a', i), ["value"] = new string('a', i), ["index"] = (long)i,
        }).ToArray(),
    };

    public static object?[] StreamMessage() =>
        ["tag", new object?[] { Arr(1440949922L, new Dictionary<string, object?> { ["message"] = "hi there" }) }];

    public static bool HasBytes(object? v) => v switch
    {
        byte[] => true,
        Dictionary<string, object?> d => d.Values.Any(HasBytes),
        object?[] a => a.Any(HasBytes),
        _ => false,
    };
}
