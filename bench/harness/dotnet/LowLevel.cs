// W1 and W2 through the libraries' low-level MessagePackWriter / MessagePackReader.
//
// Nerdbank.MessagePack's writer and reader are a fork of MessagePack-CSharp's, with the same
// methods but other types (ref structs both). The loops below are written once, generic over a
// thin ref-struct wrapper per library (C# 13 `allows ref struct`): the JIT specializes each
// loop for each wrapper and inlines the forwarding calls, so the loop costs what a loop written
// against the library's own type costs.
using System.Buffers;
using System.Text;
using System.Text.Unicode;

namespace MpkBench;

/// <summary>The type of the next value, as both libraries' MessagePackType enums number it
/// (checked by <see cref="KindCheck"/>): the wrappers convert by value.</summary>
public enum Kind { Unknown, Integer, Nil, Boolean, Float, String, Binary, Array, Map, Extension }

public static class KindCheck
{
    /// <summary>Throws when either library numbers its MessagePackType otherwise than Kind.</summary>
    public static void Run()
    {
        foreach (var t in new[] { typeof(MessagePack.MessagePackType), typeof(Nerdbank.MessagePack.MessagePackType) })
            foreach (Kind k in Enum.GetValues<Kind>())
                if (Convert.ToInt32(Enum.Parse(t, k.ToString())) != (int)k)
                    throw new InvalidOperationException($"{t.FullName}.{k} is not {(int)k}: update Kind");
    }
}

public interface IWriter
{
    void Write(long v);
    void Write(double v);
    void Write(string v);
    void WriteString(ReadOnlySpan<byte> utf8);
    void WriteBin(ReadOnlySpan<byte> v);
    void Flush();
}

public interface IReader
{
    bool End { get; }
    Kind Next { get; }
    long ReadInt64();
    double ReadDouble();
    string? ReadString();
    ReadOnlySequence<byte>? ReadStringSequence();
    ReadOnlySequence<byte>? ReadBytes();
    void Skip();
}

public ref struct MpcWriter(IBufferWriter<byte> output) : IWriter
{
    MessagePack.MessagePackWriter w = new(output);
    public void Write(long v) => w.Write(v);
    public void Write(double v) => w.Write(v);
    public void Write(string v) => w.Write(v);
    public void WriteString(ReadOnlySpan<byte> utf8) => w.WriteString(utf8);
    public void WriteBin(ReadOnlySpan<byte> v) => w.Write(v);
    public void Flush() => w.Flush();
}

public ref struct MpcReader(ReadOnlyMemory<byte> input) : IReader
{
    MessagePack.MessagePackReader r = new(input);
    public readonly bool End => r.End;
    public Kind Next => (Kind)(int)r.NextMessagePackType;
    public long ReadInt64() => r.ReadInt64();
    public double ReadDouble() => r.ReadDouble();
    public string? ReadString() => r.ReadString();
    public ReadOnlySequence<byte>? ReadStringSequence() => r.ReadStringSequence();
    public ReadOnlySequence<byte>? ReadBytes() => r.ReadBytes();
    public void Skip() => r.Skip();
}

public ref struct NbWriter(IBufferWriter<byte> output) : IWriter
{
    Nerdbank.MessagePack.MessagePackWriter w = new(output);
    public void Write(long v) => w.Write(v);
    public void Write(double v) => w.Write(v);
    public void Write(string v) => w.Write(v);
    public void WriteString(ReadOnlySpan<byte> utf8) => w.WriteString(utf8);
    public void WriteBin(ReadOnlySpan<byte> v) => w.Write(v);
    public void Flush() => w.Flush();
}

public ref struct NbReader(ReadOnlyMemory<byte> input) : IReader
{
    static readonly Nerdbank.MessagePack.SerializationContext Context = new();
    Nerdbank.MessagePack.MessagePackReader r = new(input);
    public readonly bool End => r.End;
    public Kind Next => (Kind)(int)r.NextMessagePackType;
    public long ReadInt64() => r.ReadInt64();
    public double ReadDouble() => r.ReadDouble();
    public string? ReadString() => r.ReadString();
    public ReadOnlySequence<byte>? ReadStringSequence() => r.ReadStringSequence();
    public ReadOnlySequence<byte>? ReadBytes() => r.ReadBytes();
    public void Skip() => r.Skip(Context);
}

public static class LowLevel
{
    /// <summary>A new output buffer: 64 KiB, growing geometrically (the verification's; the
    /// timed writes reuse one buffer per cell: Cells.Reused).</summary>
    public static ArrayBufferWriter<byte> NewOutput() => new(65536);

    // --- W1 -----------------------------------------------------------------------------------

    /// <summary>W1 write implicit: every field with the smallest encoding of its value.</summary>
    public static void WriteFields<TW>(ref TW w, SmallRecord[] recs) where TW : IWriter, allows ref struct
    {
        foreach (ref readonly var r in recs.AsSpan())
        {
            w.Write(r.F0); w.Write(r.F1); w.Write(r.F2); w.Write(r.F3); w.Write(r.F4);
            w.Write(r.F5); w.Write(r.F6); w.WriteString(r.F7Utf8);
        }
        w.Flush();
    }

    /// <summary>W1 read typed: the reader knows the schema. Returns a checksum of the values
    /// (handed on, not kept); with <paramref name="check"/>, false at the first wrong value.</summary>
    public static long ReadTyped<TR>(ref TR r, SmallRecord[]? check, out bool ok) where TR : IReader, allows ref struct
    {
        long sum = 0;
        ok = true;
        int i = 0;
        while (!r.End)
        {
            long f0 = r.ReadInt64(), f1 = r.ReadInt64(), f2 = r.ReadInt64(), f3 = r.ReadInt64(), f4 = r.ReadInt64();
            double f5 = r.ReadDouble(), f6 = r.ReadDouble();
            string? f7 = r.ReadString();
            sum += f0 + f1 + f2 + f3 + f4 + (long)f5 + (long)(f6 * 1e6) + (f7?.Length ?? 0);
            if (check is not null && ok)
            {
                ok = i < check.Length;
                if (!ok) break;
                ref readonly var e = ref check[i];
                ok = f0 == e.F0 && f1 == e.F1 && f2 == e.F2 && f3 == e.F3 && f4 == e.F4
                     && f5.Equals(e.F5) && f6.Equals(e.F6) && f7 == e.F7;
            }
            i++;
        }
        if (check is not null && i != check.Length) ok = false;
        return sum;
    }

    /// <summary>One value read by peeking its type first (W1 read generic): a scalar, boxed
    /// nowhere; the caller compares or sums it.</summary>
    public struct Scalar
    {
        public Kind Kind;
        public long I;
        public double D;
        public string? S;
        public readonly object? Boxed() => Kind switch { Kind.Integer => I, Kind.Float => D, Kind.String => S, _ => null };
    }

    public static long ReadGeneric<TR>(ref TR r, SmallRecord[]? check, out bool ok) where TR : IReader, allows ref struct
    {
        long sum = 0;
        int n = 0;
        ok = true;
        object?[]? fields = null;
        Scalar s = default;
        while (!r.End)
        {
            s.Kind = r.Next;
            switch (s.Kind)
            {
                case Kind.Integer: s.I = r.ReadInt64(); sum += s.I; break;
                case Kind.Float: s.D = r.ReadDouble(); sum += (long)s.D; break;
                case Kind.String: s.S = r.ReadString(); sum += s.S?.Length ?? 0; break;
                default: r.Skip(); ok = false; break;  // no other type in W1
            }
            if (check is not null && ok)
            {
                if (n % 8 == 0) fields = n / 8 < check.Length ? Data.Fields(check[n / 8]) : null;
                ok = fields is not null && Values.Same(fields[n % 8], s.Boxed());
            }
            n++;
        }
        if (check is not null && n != check.Length * 8) ok = false;
        return sum;
    }

    public static long SkipAll<TR>(ref TR r) where TR : IReader, allows ref struct
    {
        long n = 0;
        while (!r.End) { r.Skip(); n++; }
        return n;
    }

    // --- W2 -----------------------------------------------------------------------------------

    public static void WriteRepeated<TW>(ref TW w, Data.W2Case c, bool asDotNetString) where TW : IWriter, allows ref struct
    {
        if (c.Payload is byte[] bin)
            for (int k = 0; k < c.Count; k++) w.WriteBin(bin);
        else if (asDotNetString)
        {
            string s = (string)c.Payload;
            for (int k = 0; k < c.Count; k++) w.Write(s);
        }
        else
        {
            byte[] utf8 = c.Bytes;
            for (int k = 0; k < c.Count; k++) w.WriteString(utf8);
        }
        w.Flush();
    }

    /// <summary>How a W2 read hands each value on.</summary>
    public enum W2Read
    {
        View,          // a view into the input (ReadStringSequence / ReadBytes): zero-copy
        ViewUtf8,      // a view, validated as UTF-8 (Utf8.IsValid)
        Copy,          // strings: ReadString into a .NET string; binaries: the view copied into a byte[]
        CopyUtf8,      // strings: the view decoded by a throwing UTF8Encoding into a .NET string
    }

    static readonly UTF8Encoding Strict = new(false, true);

    /// <summary>Reads every W2 value; returns how many there were, or -1 at the first value
    /// that differs from <paramref name="expected"/> (when given).</summary>
    public static long ReadRepeated<TR>(ref TR r, W2Read how, bool text, object? expected) where TR : IReader, allows ref struct
    {
        long n = 0;
        byte[]? expBytes = expected as byte[] ?? (expected is string es ? Encoding.UTF8.GetBytes(es) : null);
        while (!r.End)
        {
            object? got;
            if (text && how == W2Read.Copy)
                got = r.ReadString();
            else
            {
                var seq = (text ? r.ReadStringSequence() : r.ReadBytes()) ?? throw new InvalidDataException("nil instead of a value");
                ReadOnlySpan<byte> span = seq.IsSingleSegment ? seq.FirstSpan : seq.ToArray();
                switch (how)
                {
                    case W2Read.ViewUtf8:
                        if (!Utf8.IsValid(span)) throw new InvalidDataException("invalid UTF-8");
                        got = null;
                        break;
                    case W2Read.Copy: got = span.ToArray(); break;
                    case W2Read.CopyUtf8: got = Strict.GetString(span); break;
                    default: got = null; break;
                }
                if (expBytes is not null && !span.SequenceEqual(expBytes)) return -1;
            }
            if (expected is not null && got is not null && !Values.Same(expected, got)) return -1;
            n++;
        }
        return n;
    }
}
