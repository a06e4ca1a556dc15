// Value comparison (BENCHMARKS.md rule 2): what a decoder returned against the generated data.
using System.Buffers;
using System.Collections;
using System.Text.Json;
using Newtonsoft.Json.Linq;

namespace MpkBench;

public static class Values
{
    static bool IsInteger(object? v) => v is sbyte or byte or short or ushort or int or uint or long or ulong;

    static Int128 AsInteger(object v) => v switch
    {
        ulong u => u,
        _ => Convert.ToInt64(v),
    };

    /// <summary>Deep equality of a decoded value with the data: integers of any CLR width
    /// compare by value, but an integer never equals a double, a string never equals a
    /// binary; maps compare keys in order. With <paramref name="json"/>, an integral number
    /// equals the same integral double (JSON has one number type).</summary>
    public static bool Same(object? expected, object? got, bool json = false)
    {
        switch (expected)
        {
            case null: return got is null;
            case bool b: return got is bool g && g == b;
            case string s: return got is string gs && gs == s;
            case double d:
                if (got is double gd) return gd.Equals(d);
                return json && IsInteger(got) && (double)AsInteger(got!) == d;
            case byte[] bytes:
                return got switch
                {
                    byte[] gb => gb.AsSpan().SequenceEqual(bytes),
                    ReadOnlyMemory<byte> m => m.Span.SequenceEqual(bytes),
                    ReadOnlySequence<byte> q => q.ToArray().AsSpan().SequenceEqual(bytes),
                    _ => false,
                };
            case IDictionary<string, object?> map:
                {
                    var pairs = Pairs(got);
                    if (pairs is null || pairs.Count != map.Count) return false;
                    int n = 0;
                    foreach (var (k, v) in map)
                    {
                        if (pairs[n].Key is not string gk || gk != k || !Same(v, pairs[n].Value, json)) return false;
                        n++;
                    }
                    return true;
                }
            case IList list when expected is not string:
                {
                    if (got is not IList gl || got is byte[] || gl.Count != list.Count) return false;
                    for (int k = 0; k < list.Count; k++)
                        if (!Same(list[k], gl[k], json)) return false;
                    return true;
                }
            default:
                if (IsInteger(expected))
                {
                    if (IsInteger(got)) return AsInteger(got!) == AsInteger(expected);
                    return json && got is double jd && jd == (double)AsInteger(expected);
                }
                throw new ArgumentException("Same: unexpected data type " + expected.GetType());
        }
    }

    /// <summary>The entries of a decoded map, in order, or null when it is not a map.</summary>
    static List<KeyValuePair<object?, object?>>? Pairs(object? got)
    {
        switch (got)
        {
            case IDictionary d:
                {
                    var l = new List<KeyValuePair<object?, object?>>(d.Count);
                    foreach (DictionaryEntry e in d) l.Add(new(e.Key, e.Value));
                    return l;
                }
            case IEnumerable<KeyValuePair<object, object?>> e: return e.Select(p => new KeyValuePair<object?, object?>(p.Key, p.Value)).ToList();
            case IEnumerable<KeyValuePair<string, object?>> e: return e.Select(p => new KeyValuePair<object?, object?>(p.Key, p.Value)).ToList();
            default: return null;
        }
    }

    /// <summary>A Json.NET token as a generic value (objects keep their key order).</summary>
    public static object? FromJToken(JToken? t) => t switch
    {
        null => null,
        JObject o => o.Properties().ToDictionary(p => p.Name, p => FromJToken(p.Value)),
        JArray a => a.Select(FromJToken).ToArray(),
        JValue { Type: JTokenType.Null } => null,
        JValue { Type: JTokenType.Integer } v => v.Value is System.Numerics.BigInteger bi ? (object)(ulong)bi : Convert.ToInt64(v.Value),
        JValue v => v.Value,
        _ => throw new ArgumentException("unexpected JSON token " + t.Type),
    };

    /// <summary>A System.Text.Json element as a generic value.</summary>
    public static object? FromJsonElement(JsonElement e) => e.ValueKind switch
    {
        JsonValueKind.Object => e.EnumerateObject().ToDictionary(p => p.Name, p => FromJsonElement(p.Value)),
        JsonValueKind.Array => e.EnumerateArray().Select(FromJsonElement).ToArray(),
        JsonValueKind.String => e.GetString(),
        JsonValueKind.Number => e.TryGetInt64(out long l) ? l : e.GetDouble(),
        JsonValueKind.True => true,
        JsonValueKind.False => false,
        _ => null,
    };
}
