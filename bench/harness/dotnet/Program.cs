// .NET harness of the mpk benchmark suite: MessagePack-CSharp, Nerdbank.MessagePack and the
// JSON baselines Json.NET and System.Text.Json (versions pinned by packages.lock.json).
//
//   dotnet MpkBench.dll --ref DIR --out FILE [--quick] [--only SUBSTR,...] [--list] [--bytes-dir DIR] [--profile FILE]
//   dotnet MpkBench.dll --ref DIR --check-generators [--quick]
//
// Generates every workload it can express exactly as BENCHMARKS.md defines it, verifies each
// implementation against mpk's reference encodings (written by mpk_gen) before timing it, then
// times it. Protocol, result format and how .NET cells are timed: docs/benchmark-suite.md.
using System.Diagnostics;
using System.Reflection;
using System.Runtime;
using System.Text;

namespace MpkBench;

/// <summary>A cell's verdict: verdict, text, size of its encoding (or -1), its own bytes
/// when they differ from mpk's.</summary>
public sealed record Verdict(string Kind, string Text, long Size = -1, byte[]? Encoded = null)
{
    public bool Ok => Kind is "same_bytes" or "different_bytes" or "same_values";
}

/// <summary>One cell: one (workload, case, implementation), its operation (returns something
/// derived from the result, so that the JIT cannot drop the work) and its verification.</summary>
public sealed record Cell(string Workload, string Case, string Impl, string Unit, long Units, Func<long> Op, Func<Verdict> Verify,
                          Cells.Section? Section = null)
{
    public string Id => $"{Workload}/{Case}/{Impl}";
}

public static class Program
{
    public const string Language = "C#";

    public static int Main(string[] args)
    {
        string? refDir = null, outPath = null, bytesDir = null, profilePath = null, only = "";
        bool quick = false, list = false, checkGenerators = false;
        for (int k = 0; k < args.Length; k++)
        {
            switch (args[k])
            {
                case "--ref": refDir = args[++k]; break;
                case "--out": outPath = args[++k]; break;
                case "--bytes-dir": bytesDir = args[++k]; break;
                case "--profile": profilePath = args[++k]; break;
                case "--only": only = args[++k]; break;
                case "--quick": quick = true; break;
                case "--list": list = true; break;
                case "--check-generators": checkGenerators = true; break;
                default: Console.Error.WriteLine($"MpkBench: unknown option {args[k]}"); return 2;
            }
        }
        if (refDir is null) { Console.Error.WriteLine("MpkBench: --ref DIR is required"); return 2; }
        KindCheck.Run();
        if (checkGenerators) return Generators.Check(refDir, quick);
        var words = only.Split(',', StringSplitOptions.RemoveEmptyEntries);
        var todo = Cells.All(refDir, quick).Where(c => words.Length == 0 || words.Any(w => c.Id.Contains(w))).ToList();
        if (list)
        {
            foreach (var c in todo) Console.WriteLine(c.Id);
            return 0;
        }
        if (outPath is null) { Console.Error.WriteLine("MpkBench: --out FILE is required"); return 2; }
        Console.Error.WriteLine($"MpkBench: {RuntimeVersion()}, GC {(GCSettings.IsServerGC ? "server" : "workstation")}"
                                + $" ({GCSettings.LatencyMode}), {todo.Count} cells");
        int failed = 0;
        using var csv = new StreamWriter(outPath, false, new UTF8Encoding(false)) { NewLine = "\n" };
        csv.WriteLine("workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,"
                      + "noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op,repetitions_ns");
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        // --profile FILE: seconds per phase of each cell (verification, warm-up, settling
        // batches, repetitions, the collections before them), as the JavaScript harness's.
        using var prof = profilePath is null ? null : new StreamWriter(profilePath, false, new UTF8Encoding(false)) { NewLine = "\n" };
        prof?.WriteLine("cell,verify_s,warmup_s,settle_s,reps_s,repetitions,batch,gc_s");
        var verifySeconds = new Dictionary<Cell, double>();
        // The cells of one case (workload/case), in the order listed: verified one by one, then
        // timed together, their repetitions interleaved (Timing.Interleave).
        var groups = todo.GroupBy(c => (c.Workload, c.Case)).ToList();
        // Each section's data is released after the last group holding one of its cells (with
        // --only, of the cells selected).
        var lastGroup = new Dictionary<Cells.Section, int>();
        for (int g = 0; g < groups.Count; g++)
            foreach (var c in groups[g])
                if (c.Section is not null) lastGroup[c.Section] = g;
        for (int g = 0; g < groups.Count; g++)
        {
            var group = groups[g];
            var results = new List<(Cell Cell, Verdict V, string Text, Timing.Timed? T)>();
            foreach (var c in group)
            {
                Verdict v;
                long v0 = Stopwatch.GetTimestamp();
                try { v = c.Verify(); }
                catch (Exception e) { v = new Verdict("error", $"{e.GetType().Name}: {e.Message}"); }
                verifySeconds[c] = Stopwatch.GetElapsedTime(v0).TotalSeconds;
                string text = v.Text;
                if (v.Kind == "different_bytes" && v.Encoded is not null && bytesDir is not null)
                {
                    string rel = Path.Combine(c.Impl, c.Workload, c.Case + ".msgpack");
                    Directory.CreateDirectory(Path.GetDirectoryName(Path.Combine(bytesDir, rel))!);
                    File.WriteAllBytes(Path.Combine(bytesDir, rel), v.Encoded);
                    text = "bytes:" + rel;
                }
                results.Add((c, v with { Encoded = null }, text, null));
            }
            for (int k = 0; k < results.Count; k++)
                if (results[k].V.Ok) results[k] = results[k] with { T = Timing.Prepare(results[k].Cell.Op, results[k].Cell.Units, quick) };
            Timing.Interleave(results.Where(r => r.T is not null).Select(r => r.T!).ToList());
            foreach (var (c, v, text, t) in results)
            {
                string median = "", spread = "", reps = "", noisy = "", alloc = "", samples = "";
                if (t is not null)
                {
                    var m = t.Result();
                    median = m.Median.ToString("F4", inv);
                    spread = m.Spread.ToString("F2", inv);
                    reps = m.Repetitions.ToString();
                    noisy = m.Spread > 5 ? "yes" : "no";
                    alloc = m.AllocBytesPerUnit.ToString("F1", inv);
                    samples = string.Join(" ", t.Samples.Select(x => x.ToString("F4", inv)));
                }
                else failed++;
                prof?.WriteLine(string.Join(",", new[]
                {
                    c.Id, verifySeconds[c].ToString("F4", inv), (t?.WarmupSeconds ?? 0).ToString("F4", inv),
                    (t?.SettleSeconds ?? 0).ToString("F4", inv), (t?.RepSeconds ?? 0).ToString("F4", inv),
                    (t?.Samples.Count ?? 0).ToString(), (t?.Batch ?? 0).ToString(), (t?.GcSeconds ?? 0).ToString("F4", inv),
                }));
                csv.WriteLine(string.Join(",", new[]
                {
                    c.Workload, c.Case, c.Impl, Language, Versions.Of(c.Impl), c.Unit, median, spread, reps, noisy,
                    v.Kind, text, v.Size < 0 ? "" : v.Size.ToString(), alloc, "", samples,
                }.Select(Csv)));
                csv.Flush();
                Console.WriteLine($"CELL {c.Id} {v.Kind}");
            }
            foreach (var (section, last) in lastGroup)
                if (last == g) section.Release();
        }
        return failed > 0 ? 1 : 0;
    }

    static string Csv(string s) => s.IndexOfAny([',', '"', '\n']) >= 0 ? "\"" + s.Replace("\"", "\"\"") + "\"" : s;

    public static string RuntimeVersion() => System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription;
}

/// <summary>The version of every implementation, from its assembly (the lock file pins it).</summary>
public static class Versions
{
    static string Of(Assembly a)
    {
        string v = a.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? a.GetName().Version!.ToString();
        int plus = v.IndexOf('+');
        return plus < 0 ? v : v[..plus];
    }

    static readonly Dictionary<string, string> Known = new()
    {
        [Cells.Mpc] = "MessagePack " + Of(typeof(MessagePack.MessagePackSerializer).Assembly) + " (MessagePack-CSharp)",
        [Cells.Nb] = "Nerdbank.MessagePack " + Of(typeof(Nerdbank.MessagePack.MessagePackSerializer).Assembly),
        [Cells.JsonNet] = "Newtonsoft.Json " + Of(typeof(Newtonsoft.Json.JsonConvert).Assembly),
        [Cells.Stj] = "System.Text.Json " + Of(typeof(System.Text.Json.JsonSerializer).Assembly) + " (the framework's)",
    };

    public static string Of(string impl) => Known[impl] + " / " + Program.RuntimeVersion()
        + (System.Runtime.GCSettings.IsServerGC ? ", server GC" : ", workstation GC");
}

/// <summary>How .NET cells are timed (docs/benchmark-suite.md, ".NET"): a warm-up that lasts
/// until the JIT's tiering has settled (batches of the operation timed until two in a row
/// agree within 2%, after at least 0.5 s and 30 calls), then 5 repetitions of ~0.25 s (3 for
/// an operation of 2 s or more), each after a full collection, interleaved with those of the
/// other implementations of the case. MPK_BENCH_SHORT=1 (the runner's default mode): the
/// same, shorter (Short below).</summary>
public static class Timing
{
    public sealed record Result(double Median, double Spread, int Repetitions, double AllocBytesPerUnit);

    const double LongOp = 2.0;
    static long sink;

    static double Seconds(long ticks) => ticks / (double)Stopwatch.Frequency;

    static double Batch(Func<long> op, long n)
    {
        long t = Stopwatch.GetTimestamp();
        for (long k = 0; k < n; k++) sink += op();
        return Seconds(Stopwatch.GetTimestamp() - t);
    }

    /// <summary>A cell being timed: its operation (warmed up), batch, repetitions, and the
    /// samples (ns per unit of each repetition, in the order they ran).</summary>
    public sealed class Timed(Func<long> op, long units, long batch, int reps)
    {
        public Func<long> Op { get; } = op;
        public long Units { get; } = units;
        public long Batch { get; } = batch;
        public int Reps { get; } = reps;
        public List<double> Samples { get; } = new();
        public long Allocated { get; set; }
        // --profile: seconds of the warm-up's two parts, the repetitions, their collections.
        public double WarmupSeconds { get; set; }
        public double SettleSeconds { get; set; }
        public double RepSeconds { get; set; }
        public double GcSeconds { get; set; }

        /// <summary>Median, range % ((max - min) / median; the runner computes the robust
        /// spread from the samples), repetitions, bytes allocated per unit.</summary>
        public Result Result()
        {
            var v = Samples.OrderBy(x => x).ToArray();
            int n = v.Length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            double spread = median > 0 ? (v[^1] - v[0]) / median * 100 : 0;
            return new Result(median, spread, n, Allocated / (double)(Batch * n * Units));
        }
    }

    /// <summary>MPK_BENCH_SHORT=1 (the runner's default mode; ignored with --quick): shorter
    /// warm-up and repetitions, as many repetitions, the same settling.</summary>
    public static readonly bool Short = Environment.GetEnvironmentVariable("MPK_BENCH_SHORT") == "1";

    /// <summary>The warm-up; sizes the batch.</summary>
    public static Timed Prepare(Func<long> op, long units, bool quick)
    {
        bool isShort = Short && !quick;
        // Short: 0.15 s rather than 0.5 s, still past the runtime's 100 ms tiering delay (calls
        // are not counted toward tier 1 during it), and 5 batches of ~0.05 s like the other
        // harnesses' default mode.
        var (warm, target, reps, minCalls) = quick ? (0.01, 0.02, 3, 3) : isShort ? (0.15, 0.05, 5, 30) : (0.5, 0.25, 5, 30);
        // An operation this long gets 3 repetitions and no settling batches (in the default
        // mode from 0.5 s, as the JavaScript harness: a 20-minute run).
        double longOp = isShort ? 0.5 : LongOp;
        // Warm-up, first part: a fixed time and number of calls (tier-0 code is counted and
        // promoted after 30 calls; loops inside a long operation go through OSR). The calls
        // stop counting after 3 x longOp (full mode), or longOp (default mode): an operation
        // of 0.025-0.5 s (the W1, W2 and W3 streams) runs its inner loops hot during its first
        // calls, and the settling batches below wait for the JIT to be done.
        long calls = 0;
        long t0 = Stopwatch.GetTimestamp();
        double elapsed;
        double callsCap = isShort ? longOp : longOp * 3;
        do
        {
            sink += op();
            calls++;
            elapsed = Seconds(Stopwatch.GetTimestamp() - t0);
        } while (elapsed < warm || (calls < minCalls && elapsed < callsCap));
        double perCall = elapsed / calls;
        long settle0 = Stopwatch.GetTimestamp();
        long batch = Math.Max(1, (long)(target / perCall));
        if (perCall >= longOp) reps = 3;
        // Second part (full and default modes): batches until two in a row agree within 2%
        // (tiered-up code is installed in the background; the batch that sees it runs faster),
        // at most 8. Short batches agree by chance more often, so the default mode also waits
        // for a batch during which the JIT compiled nothing (JitInfo counts the methods
        // compiled at any tier, background tier-1 compilations included): at most 16 of them,
        // still shorter than the full mode's 8, and none begun after longOp (an operation of
        // 0.025 s or more is one call per batch: 16 of them took up to 8 s).
        if (!quick && perCall < longOp)
        {
            long small = Math.Max(1, batch / 2);
            double prev = Batch(op, small);
            for (int round = 0; round < (isShort ? 16 : 8); round++)
            {
                if (isShort && Seconds(Stopwatch.GetTimestamp() - settle0) >= longOp) break;
                long jitted = System.Runtime.JitInfo.GetCompiledMethodCount();
                double cur = Batch(op, small);
                bool quiet = !isShort || System.Runtime.JitInfo.GetCompiledMethodCount() == jitted;
                if (quiet && Math.Abs(cur - prev) <= 0.02 * Math.Min(cur, prev)) break;
                prev = cur;
            }
        }
        return new Timed(op, units, batch, reps) { WarmupSeconds = elapsed, SettleSeconds = Stopwatch.GetElapsedTime(settle0).TotalSeconds };
    }

    /// <summary>One repetition, after a full collection.</summary>
    public static void Rep(Timed t)
    {
        long c0 = Stopwatch.GetTimestamp();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        t.GcSeconds += Stopwatch.GetElapsedTime(c0).TotalSeconds;
        long a0 = GC.GetAllocatedBytesForCurrentThread();
        double s = Batch(t.Op, t.Batch);
        t.RepSeconds += s;
        t.Allocated += GC.GetAllocatedBytesForCurrentThread() - a0;
        t.Samples.Add(s * 1e9 / (t.Batch * t.Units));
    }

    /// <summary>The repetitions of the implementations of one case, interleaved
    /// (docs/benchmark-suite.md, "Interleaving"; as mpk_bench's suite::register_benchmarks):
    /// repetition k of every implementation before repetition k + 1 of any, the first
    /// implementation rotating (A B C, B C A, ...). One with fewer repetitions (a long
    /// operation) drops out of the later rounds.</summary>
    public static void Interleave(List<Timed> timed)
    {
        int n = timed.Count;
        int rounds = timed.Count == 0 ? 0 : timed.Max(t => t.Reps);
        for (int k = 0; k < rounds; k++)
            for (int j = 0; j < n; j++)
            {
                var t = timed[(k + j) % n];
                if (t.Samples.Count < t.Reps) Rep(t);
            }
    }
}
