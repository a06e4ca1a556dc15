// The typed forms of the data (W3's maps, W5's objects, W7's stream message), one class per
// shape carrying every library's attributes: MessagePack-CSharp's [MessagePackObject] /
// [Key], Nerdbank.MessagePack's [GenerateShape] (PolyType's source generator) and [Key],
// and the JSON libraries' defaults (public properties, named as the wire keys).
// Property names are the wire keys themselves (lower case), so that no library needs a
// naming policy and map mode writes the keys of BENCHMARKS.md in declaration order.
#pragma warning disable IDE1006 // lower-case members: they are the wire keys
using MessagePack;
using PolyType;
using NB = Nerdbank.MessagePack;

namespace MpkBench;

[MessagePackObject(keyAsPropertyName: true)]
[GenerateShape]
public partial class FlatMap
{
    public long k00 { get; set; }
    public double k01 { get; set; }
    public string k02 { get; set; } = "";
    public bool k03 { get; set; }
    public long k04 { get; set; }
    public double k05 { get; set; }
    public string k06 { get; set; } = "";
    public bool k07 { get; set; }
    public long k08 { get; set; }
    public double k09 { get; set; }
    public string k10 { get; set; } = "";
    public bool k11 { get; set; }
    public long k12 { get; set; }
    public double k13 { get; set; }
    public string k14 { get; set; } = "";
    public bool k15 { get; set; }

    /// <summary>Map i of BENCHMARKS.md W3.</summary>
    public static FlatMap Make(int i)
    {
        string s = "v" + (i % 100);
        double F(int j) => i + (j + 0.5) / 16;
        bool B(int j) => (i + j) % 2 == 0;
        return new FlatMap
        {
            k00 = i * 16L + 0, k01 = F(1), k02 = s, k03 = B(3), k04 = i * 16L + 4, k05 = F(5), k06 = s, k07 = B(7),
            k08 = i * 16L + 8, k09 = F(9), k10 = s, k11 = B(11), k12 = i * 16L + 12, k13 = F(13), k14 = s, k15 = B(15),
        };
    }

    public Dictionary<string, object?> Tree() => new()
    {
        ["k00"] = k00, ["k01"] = k01, ["k02"] = k02, ["k03"] = k03, ["k04"] = k04, ["k05"] = k05, ["k06"] = k06,
        ["k07"] = k07, ["k08"] = k08, ["k09"] = k09, ["k10"] = k10, ["k11"] = k11, ["k12"] = k12, ["k13"] = k13,
        ["k14"] = k14, ["k15"] = k15,
    };
}

/// <summary>W5 beer in map mode: keys are the field names.</summary>
[MessagePackObject(keyAsPropertyName: true)]
[GenerateShape]
public partial class Beer
{
    public string brand { get; set; } = "";
    public double alcohol { get; set; }
    public string brewery { get; set; } = "";
    public string[] sort { get; set; } = [];

    public object? Tree() => new Dictionary<string, object?>
    { ["brand"] = brand, ["alcohol"] = alcohol, ["brewery"] = brewery, ["sort"] = sort.Cast<object?>().ToArray() };
}

/// <summary>W5 beer in array mode: positional, integer keys.</summary>
[MessagePackObject]
[GenerateShape]
public partial class BeerArray
{
    [Key(0)] [NB.Key(0)] public string brand { get; set; } = "";
    [Key(1)] [NB.Key(1)] public double alcohol { get; set; }
    [Key(2)] [NB.Key(2)] public string brewery { get; set; } = "";
    [Key(3)] [NB.Key(3)] public string[] sort { get; set; } = [];

    public object? Tree() => new object?[] { brand, alcohol, brewery, sort.Cast<object?>().ToArray() };
}

/// <summary>W7 stream message ["tag", [[1440949922, {"message": "hi there"}]]] as types.</summary>
[MessagePackObject]
[GenerateShape]
public partial class StreamMessage
{
    [Key(0)] [NB.Key(0)] public string tag { get; set; } = "";
    [Key(1)] [NB.Key(1)] public StreamEntry[] entries { get; set; } = [];

    public static StreamMessage Make() => new() { tag = "tag", entries = [new StreamEntry { time = 1440949922, body = new StreamBody { message = "hi there" } }] };

    public object? Tree() => new object?[] { tag, entries.Select(e => (object?)new object?[] { e.time, new Dictionary<string, object?> { ["message"] = e.body.message } }).ToArray() };
}

[MessagePackObject]
[GenerateShape]
public partial class StreamEntry
{
    [Key(0)] [NB.Key(0)] public long time { get; set; }
    [Key(1)] [NB.Key(1)] public StreamBody body { get; set; } = new();
}

[MessagePackObject(keyAsPropertyName: true)]
[GenerateShape]
public partial class StreamBody
{
    public string message { get; set; } = "";
}

/// <summary>The shapes Nerdbank.MessagePack needs: the W5 arrays and lists, and the runtime
/// types of the generic trees (written through its object converter).</summary>
[GenerateShapeFor<object>]
[GenerateShapeFor<Dictionary<string, object>>]
[GenerateShapeFor<object[]>]
[GenerateShapeFor<byte[]>]
[GenerateShapeFor<string>]
[GenerateShapeFor<long>]
[GenerateShapeFor<double>]
[GenerateShapeFor<bool>]
[GenerateShapeFor<long[]>]
[GenerateShapeFor<double[]>]
[GenerateShapeFor<Beer[]>]
[GenerateShapeFor<BeerArray[]>]
public partial class Witness;

/// <summary>W5 typed values: name -> (typed value, its generic tree).</summary>
public static class Typed
{
    public static Beer Beer(string brand, double alcohol) => new() { brand = brand, alcohol = alcohol, brewery = "Brew Co", sort = [.. Data.Sorts] };
    public static BeerArray BeerArr(string brand, double alcohol) => new() { brand = brand, alcohol = alcohol, brewery = "Brew Co", sort = [.. Data.Sorts] };

    public static Dictionary<string, object> Objects() => new()
    {
        ["int_array"] = Enumerable.Range(0, 100).Select(k => (long)((k * 7919) % 65536 - 1000)).ToArray(),
        ["double_array"] = Enumerable.Range(0, 100).Select(k => k * 1.1 + 0.5).ToArray(),
        ["beer_map"] = Beer("Ale Brewery Lager", 4.5),
        ["beer_array"] = BeerArr("Ale Brewery Lager", 4.5),
        ["beer_list_map"] = Enumerable.Range(0, 10).Select(k => Beer("Ale " + k, 4.5 + k / 4.0)).ToArray(),
        ["beer_list_array"] = Enumerable.Range(0, 10).Select(k => BeerArr("Ale " + k, 4.5 + k / 4.0)).ToArray(),
    };

    /// <summary>The generic tree of a typed W5 value (for the value comparison).</summary>
    public static object? Tree(object? v) => v switch
    {
        long[] a => a.Select(x => (object?)x).ToArray(),
        double[] a => a.Select(x => (object?)x).ToArray(),
        Beer b => b.Tree(),
        BeerArray b => b.Tree(),
        Beer[] l => l.Select(b => b.Tree()).ToArray(),
        BeerArray[] l => l.Select(b => b.Tree()).ToArray(),
        FlatMap m => m.Tree(),
        StreamMessage m => m.Tree(),
        _ => throw new ArgumentException("no tree for " + v?.GetType()),
    };
}
