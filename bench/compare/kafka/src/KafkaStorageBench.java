import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.metadata.ConfigRepository;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.CleanerStats;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
import org.apache.kafka.storage.internals.log.LogCleaner;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.OffsetResultHolder;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Kafka's half of bench/compare: the workloads of bench/compare/seglog_bench.cc run on
 * Apache Kafka 4.4.0's own storage classes (UnifiedLog, LogManager, Cleaner) loaded from the
 * Maven jars, on identical inputs. One JSON line per result on stdout:
 *
 *   {"system":"kafka","workload":...,"metric":...,"higher_is_better":...,"runs":[...],
 *    "median":...,"params":{...}}
 *
 *   append --record-size N --batch-records K --total-bytes B --codec none|zstd [--keys K]
 *   append-sweep [--total-bytes B]              sizes 10, 100, 1000, 10000 B, ~16 KiB batches
 *   lookup [--log-bytes B]                      offset-lookup (1,000,000) + timestamp-lookup (100,000)
 *   offset-lookup | timestamp-lookup [--log-bytes B] [--lookups N]   one of the two alone
 *   read-all [--log-bytes B]                    sequential read in 1 MiB fetches, copied out
 *   recover --dir D [--partition rec-0] [--delete-indexes 0|1]
 *   clean --dir D [--partition cmp-0]
 *   open-many --dir D [--threads 2] [--mode logmanager|unifiedlog] [--copy 1|0]
 *   make-recover-dir | make-clean-dir | make-open-dir --dir D ...   inputs written by Kafka
 *
 * Common: --iterations N (5), --warmup N (2), --scratch S (work directories; default: --dir for
 * the workloads that build their own log, as seglog_bench, else /tmp), --seed (42).
 * Everything except the JSON lines goes to stderr.
 */
public final class KafkaStorageBench {

    static final long T0 = 1_700_000_000_000L;
    static final long CLEAN_NOW_MS = 1_800_000_000_000L;  // seglog_bench cleans "as of" this time
    static final int MAX_TRANSACTION_TIMEOUT_MS = 900_000;           // transaction.max.timeout.ms
    static final int PRODUCER_ID_EXPIRATION_MS = 86_400_000;         // producer.id.expiration.ms
    static final int PRODUCER_ID_EXPIRATION_CHECK_MS = 600_000;      // producer.id.expiration.check.interval.ms

    static Map<String, String> args = new HashMap<>();
    static KafkaScheduler scheduler;
    static final BrokerTopicStats TOPIC_STATS = new BrokerTopicStats();

    // ---------------------------------------------------------------- arguments, output

    static long intArg(String k, long def) {
        String v = args.get(k);
        return v == null ? def : Long.parseLong(v);
    }

    static String strArg(String k, String def) {
        String v = args.get(k);
        return v == null ? def : v;
    }

    static void log(String fmt, Object... a) {
        System.err.println("kafka_bench: " + String.format(fmt, a));
    }

    /** A number as JSON: 6 significant digits, no exponent; null for NaN/infinity. */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "null";
        if (v == 0) return "0";
        return new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static double median(List<Double> runs) {
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        if (n == 0) return Double.NaN;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** Ordered JSON object built from key/value pairs; values are Number, Boolean, String or raw JSON. */
    static final class Json {
        final LinkedHashMap<String, String> fields = new LinkedHashMap<>();

        Json put(String k, Object v) {
            String s;
            if (v == null) s = "null";
            else if (v instanceof Double || v instanceof Float) s = num(((Number) v).doubleValue());
            else if (v instanceof Number || v instanceof Boolean) s = v.toString();
            else if (v instanceof Json) s = v.toString();
            else s = str(v.toString());
            fields.put(k, s);
            return this;
        }

        Json raw(String k, String json) {
            fields.put(k, json);
            return this;
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<String, String> e : fields.entrySet()) {
                if (b.length() > 1) b.append(',');
                b.append(str(e.getKey())).append(':').append(e.getValue());
            }
            return b.append('}').toString();
        }
    }

    static String list(List<Double> runs) {
        StringBuilder b = new StringBuilder("[");
        for (double r : runs) {
            if (b.length() > 1) b.append(',');
            b.append(num(r));
        }
        return b.append(']').toString();
    }

    static Json baseParams() {
        Runtime rt = Runtime.getRuntime();
        return new Json()
                .put("kafka_version", AppInfoParser.getVersion())
                .put("kafka_commit", AppInfoParser.getCommitId())
                .put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
                .put("heap_max_mib", rt.maxMemory() >> 20)
                .put("iterations", intArg("--iterations", 5))
                .put("warmup", intArg("--warmup", 2));
    }

    static void emit(String workload, String metric, boolean higherIsBetter, List<Double> runs, Json params) {
        Json j = new Json()
                .put("system", "kafka")
                .put("workload", workload)
                .put("metric", metric)
                .put("higher_is_better", higherIsBetter)
                .raw("runs", list(runs))
                .put("median", median(runs))
                .put("params", params);
        System.out.println(j);
        System.out.flush();
    }

    interface Iteration {
        /** One run; returns its measurements (the same number every time). */
        double[] run(int index, boolean warmup) throws Exception;
    }

    /** --warmup unreported runs, then --iterations reported ones; results.get(k) = k-th measurement. */
    /**
     * CPU time of the calling thread since construction, split into user and kernel time
     * (ThreadMXBean; seglog_bench reads getrusage(RUSAGE_THREAD)). The JIT compiler's and the
     * garbage collector's threads are not counted: this is the storage code's own thread.
     */
    static final class ThreadCpu {
        static final java.lang.management.ThreadMXBean MX = java.lang.management.ManagementFactory.getThreadMXBean();
        final long cpu0 = MX.getCurrentThreadCpuTime();
        final long user0 = MX.getCurrentThreadUserTime();

        /**
         * {user, kernel} CPU seconds per GB of `bytes`. The total is exact; the user part comes
         * in scheduler ticks, so over a very short section the difference can dip below zero:
         * clamped there (full-size runs last long enough for the ticks not to matter).
         */
        double[] perGb(long bytes) {
            long cpu = MX.getCurrentThreadCpuTime() - cpu0, user = MX.getCurrentThreadUserTime() - user0;
            double gb = bytes / 1e9;
            return new double[]{user / 1e9 / gb, Math.max(0, cpu - user) / 1e9 / gb};
        }
    }

    static List<List<Double>> repeat(String what, Iteration once) throws Exception {
        long warmup = intArg("--warmup", 2), iterations = intArg("--iterations", 5);
        List<List<Double>> results = new ArrayList<>();
        for (int i = 0; i < warmup + iterations; i++) {
            boolean w = i < warmup;
            double[] r = once.run(i, w);
            log("%s %s %d: %s", what, w ? "warm-up" : "run", w ? i + 1 : i - warmup + 1, Arrays.toString(r));
            if (w) continue;
            while (results.size() < r.length) results.add(new ArrayList<>());
            for (int k = 0; k < r.length; k++) results.get(k).add(r[k]);
        }
        return results;
    }

    // ---------------------------------------------------------------- inputs

    /**
     * Record i: key "key-%010d" of (i % keys), a value of `recordSize` bytes of 'a' + i % 26,
     * CreateTime 1700000000000 + i; batches of magic 2, base offset 0, no producer id: the same
     * inputs seglog_bench builds. Batches come out one at a time, each in its own exact-size
     * heap buffer (as a produce request's would be).
     */
    static final class BatchMaker {
        final int recordSize;
        final int batchRecords;
        final long keys;
        final Compression compression;
        final byte[][] values = new byte[26][];
        final byte[] key = "key-0000000000".getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer scratch;
        long next = 0;  // index of the next record

        BatchMaker(int recordSize, int batchRecords, long keys, Compression compression) {
            this.recordSize = recordSize;
            this.batchRecords = batchRecords;
            this.keys = keys;
            this.compression = compression;
            for (int c = 0; c < 26; c++) {
                values[c] = new byte[recordSize];
                Arrays.fill(values[c], (byte) ('a' + c));
            }
            scratch = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 64, (long) batchRecords * (recordSize + 48) + 1024));
        }

        private byte[] keyOf(long i) {
            long k = i % keys;
            byte[] out = key.clone();
            for (int p = out.length - 1; p >= 4; p--) {
                out[p] = (byte) ('0' + (k % 10));
                k /= 10;
            }
            return out;
        }

        MemoryRecords nextBatch() {
            scratch.clear();
            MemoryRecordsBuilder b = MemoryRecords.builder(scratch, RecordBatch.MAGIC_VALUE_V2, compression,
                    TimestampType.CREATE_TIME, 0L);
            for (int r = 0; r < batchRecords; r++, next++) {
                b.append(T0 + next, keyOf(next), values[(int) (next % 26)]);
            }
            ByteBuffer built = b.build().buffer();
            ByteBuffer exact = ByteBuffer.allocate(built.remaining());
            exact.put(built.duplicate());
            exact.flip();
            return MemoryRecords.readableRecords(exact);
        }
    }

    static Compression codec(String name) {
        switch (name) {
            case "none": return Compression.NONE;
            case "zstd": return Compression.zstd().build();
            case "lz4": return Compression.lz4().build();
            case "snappy": return Compression.snappy().build();
            case "gzip": return Compression.gzip().build();
            default: throw new IllegalArgumentException("unknown codec " + name);
        }
    }

    /** Batches until their total size reaches totalBytes (the loop of seglog_bench's Batches()). */
    static List<MemoryRecords> batches(int recordSize, int batchRecords, long totalBytes, Compression c, long keys) {
        BatchMaker m = new BatchMaker(recordSize, batchRecords, keys, c);
        List<MemoryRecords> out = new ArrayList<>();
        long bytes = 0;
        while (bytes < totalBytes) {
            MemoryRecords r = m.nextBatch();
            out.add(r);
            bytes += r.sizeInBytes();
        }
        return out;
    }

    // ---------------------------------------------------------------- Kafka plumbing

    static LogConfig logConfig(Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>(overrides);
        // --config k=v,k=v adds topic-level overrides for every log the harness opens.
        String extra = strArg("--config", "");
        for (String kv : extra.split(",")) {
            if (kv.isBlank()) continue;
            int eq = kv.indexOf('=');
            props.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return new LogConfig(props);
    }

    static UnifiedLog openLog(File dir, LogConfig config, long recoveryPoint, boolean hadCleanShutdown) throws IOException {
        return UnifiedLog.create(dir, config, 0L, recoveryPoint, scheduler, TOPIC_STATS, Time.SYSTEM,
                MAX_TRANSACTION_TIMEOUT_MS, new ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS, false),
                PRODUCER_ID_EXPIRATION_CHECK_MS, new LogDirFailureChannel(1), hadCleanShutdown, Optional.empty());
    }

    /**
     * Waits for the background tasks already due on the scheduler (a single thread, so they run
     * in order): the flush of a rolled segment, leader-epoch checkpoint writes. Called after a
     * log is built and before a directory is deleted, so no Kafka I/O overlaps a timed section
     * or races a delete.
     */
    static void drain() throws Exception {
        for (int i = 0; i < 2; i++) scheduler.scheduleOnce("kafka-bench-drain", () -> { }).get();
    }

    /** Lets due background tasks finish first (a roll's flush would fail on a closed segment). */
    static void closeLog(UnifiedLog ulog) throws Exception {
        drain();
        ulog.close();
        drain();
    }

    /** As LogManager.shutdown closes a log: active segment trimmed, everything flushed, then closed. */
    static void shutdownLog(UnifiedLog ulog) throws Exception {
        drain();
        ulog.prepareActiveSegmentForClose();
        ulog.flush(true);
        ulog.close();
        drain();
    }

    static Path scratchRoot(String def) {
        return Paths.get(strArg("--scratch", def));
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(q);
            }
        }
    }

    static Path freshDir(Path root, String name) throws IOException {
        Path d = root.resolve("kafka-compare-" + name);
        deleteTree(d);
        Files.createDirectories(d);
        return d;
    }

    /** Copies `from` to `to` (cp -a), then fdatasyncs every regular file when `sync`. */
    static void copyDir(Path from, Path to, boolean sync) throws Exception {
        deleteTree(to);
        Files.createDirectories(to.getParent());
        Process p = new ProcessBuilder("cp", "-a", "--", from.toString(), to.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (p.waitFor() != 0) throw new IOException("cp -a " + from + " " + to + " failed");
        if (!sync) return;
        try (Stream<Path> s = Files.walk(to)) {
            for (Path q : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                try (FileChannel ch = FileChannel.open(q, StandardOpenOption.READ)) {
                    ch.force(false);
                }
            }
        }
    }

    static long dirBytes(Path dir, String suffix) throws IOException {
        long n = 0;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path q : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                if (q.getFileName().toString().endsWith(suffix)) n += Files.size(q);
            }
        }
        return n;
    }

    static long countFiles(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(q -> q.getFileName().toString().endsWith(suffix)).count();
        }
    }

    /** The partition directory in a source dir: --partition if given, else the only child holding .log files. */
    static String partitionName(Path src, String def) throws IOException {
        String p = args.get("--partition");
        if (p != null) return p;
        if (Files.isDirectory(src.resolve(def))) return def;
        List<String> found = new ArrayList<>();
        try (Stream<Path> s = Files.list(src)) {
            for (Path q : (Iterable<Path>) s.filter(Files::isDirectory)::iterator) {
                try (Stream<Path> t = Files.list(q)) {
                    if (t.anyMatch(f -> f.getFileName().toString().endsWith(".log"))) found.add(q.getFileName().toString());
                }
            }
        }
        if (found.size() != 1) throw new IOException("expected one partition directory in " + src + ", found " + found);
        return found.get(0);
    }

    static long rssKiB() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
        }
        return -1;
    }

    /** The soft RLIMIT_NOFILE of this process (the JVM may have raised it to the hard limit), or -1. */
    static long openFileLimit() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return -1;
    }

    static long heapUsed() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    static void fullGc() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }

    // ---------------------------------------------------------------- workloads

    static String appendName(int size, int batch, String codec) {
        if (codec.equals("zstd")) return "append-zstd-" + size + "B-" + batch;
        if (size == 1024) return "append-1KiB-" + batch;
        return "append-" + size + "B-" + batch;
    }

    /** Builds the batches, then times UnifiedLog.appendAsLeader(batch, leaderEpoch 0) of all of them into a fresh log. */
    static void append(String workload, int recordSize, int batchRecords, long totalBytes, String codecName) throws Exception {
        long keys = intArg("--keys", 1_000_000);
        List<MemoryRecords> bs = batches(recordSize, batchRecords, totalBytes, codec(codecName), keys);
        long bytes = 0;
        for (MemoryRecords b : bs) bytes += b.sizeInBytes();
        final long totalBatchBytes = bytes;
        final long records = (long) bs.size() * batchRecords;
        Path root = scratchRoot(strArg("--dir", "/tmp"));
        LogConfig config = logConfig(Map.of());
        log("%s: %d batches, %d bytes, %d records", workload, bs.size(), bytes, records);
        // appendAsLeader assigns offsets in place (base offset, partition leader epoch: header
        // fields outside the CRC) and 4.4.0 rejects a leader append whose base offset is not 0, so
        // every run first puts those two fields back; a checksum proves the bytes are as built.
        final long digest = digest(bs);
        List<List<Double>> res = repeat(workload, (i, w) -> {
            for (MemoryRecords b : bs) {
                ByteBuffer buf = b.buffer();
                for (int pos = 0; pos < buf.limit(); pos += 12 + buf.getInt(pos + 8)) {
                    buf.putLong(pos, 0L);
                    buf.putInt(pos + 12, RecordBatch.NO_PARTITION_LEADER_EPOCH);
                }
            }
            if (digest(bs) != digest) throw new IllegalStateException("batches changed between runs");
            Path dir = freshDir(root, "append");
            UnifiedLog ulog = openLog(dir.resolve("bench-0").toFile(), config, 0L, true);
            ThreadCpu cpu = new ThreadCpu();
            long t0 = System.nanoTime();
            for (MemoryRecords b : bs) ulog.appendAsLeader(b, 0);
            double s = (System.nanoTime() - t0) / 1e9;
            double[] perGb = cpu.perGb(totalBatchBytes);
            long leo = ulog.logEndOffset();
            closeLog(ulog);
            deleteTree(dir);
            if (leo != records) throw new IllegalStateException("log end offset " + leo + " != " + records);
            return new double[]{totalBatchBytes / 1e6 / s, records / s, perGb[0], perGb[1]};
        });
        Json params = baseParams()
                .put("record_size", recordSize)
                .put("batch_records", batchRecords)
                .put("bytes", totalBatchBytes)
                .put("records", records)
                .put("batches", bs.size())
                .put("codec", codecName)
                .put("keys", keys)
                .put("api", "UnifiedLog.appendAsLeader(MemoryRecords, 0)");
        emit(workload, "MB/s", true, res.get(0), params);
        emit(workload, "records/s", true, res.get(1), params);
        emit(workload, "user CPU s/GB", false, res.get(2), params);
        emit(workload, "kernel CPU s/GB", false, res.get(3), params);
    }

    static long digest(List<MemoryRecords> bs) {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        for (MemoryRecords b : bs) c.update(b.buffer());
        return c.getValue();
    }

    /** A log of 16 x 1 KiB-record batches, appended batch by batch; stays open. */
    static UnifiedLog buildLog(Path root, long logBytes, long[] recordsOut) throws Exception {
        Path dir = freshDir(root, "lookup");
        UnifiedLog ulog = openLog(dir.resolve("bench-0").toFile(), logConfig(Map.of()), 0L, true);
        BatchMaker m = new BatchMaker(1024, 16, intArg("--keys", 1_000_000), Compression.NONE);
        long bytes = 0, records = 0;
        while (bytes < logBytes) {
            MemoryRecords b = m.nextBatch();
            bytes += b.sizeInBytes();
            ulog.appendAsLeader(b, 0);
            records += 16;
        }
        recordsOut[0] = records;
        ulog.flush(true);  // what the roll's background flush would do, now rather than while timing
        drain();
        log("built a log of %d bytes, %d records, %d segments in %s", ulog.size(), records, ulog.numberOfSegments(), dir);
        return ulog;
    }

    static void closeAndDelete(UnifiedLog ulog) throws Exception {
        Path dir = ulog.dir().toPath().getParent();
        closeLog(ulog);
        deleteTree(dir);
    }

    /**
     * offset-lookup: 1,000,000 UnifiedLog.read(offset, maxLength 1, LOG_END, minOneMessage true);
     * timestamp-lookup: 100,000 UnifiedLog.fetchOffsetByTimestamp(ts, no remote reader). The
     * offsets and timestamps are those of seglog_bench: std::mt19937_64(42) % records, one
     * generator per run, timestamps drawn after the offsets.
     */
    static void lookup(boolean offsets, boolean timestamps) throws Exception {
        long[] rec = new long[1];
        UnifiedLog ulog = buildLog(scratchRoot(strArg("--dir", "/tmp")), intArg("--log-bytes", 1L << 30), rec);
        final long records = rec[0];
        verifyLookups(ulog, records);
        final int n = (int) intArg("--lookups", 1_000_000);
        final int m = (int) intArg("--timestamp-lookups", 100_000);
        final long seed = intArg("--seed", 42);
        List<List<Double>> res = repeat("lookup", (i, w) -> {
            Mt19937_64 rng = new Mt19937_64(seed);
            long sink = 0;
            double offsetNs = Double.NaN, tsNs = Double.NaN;
            long t0 = System.nanoTime();
            if (offsets) {
                for (int k = 0; k < n; k++) {
                    FetchDataInfo f = ulog.read(rng.nextMod(records), 1, FetchIsolation.LOG_END, true);
                    sink += f.fetchOffsetMetadata.relativePositionInSegment;
                }
                offsetNs = (System.nanoTime() - t0) / (double) n;
            } else {
                for (int k = 0; k < n; k++) sink += rng.next();  // the timestamps come after n offsets
            }
            if (timestamps) {
                t0 = System.nanoTime();
                for (int k = 0; k < m; k++) {
                    OffsetResultHolder h = ulog.fetchOffsetByTimestamp(T0 + rng.nextMod(records), Optional.empty());
                    sink += h.timestampAndOffsetOpt().map(t -> t.offset).orElse(-1L);
                }
                tsNs = (System.nanoTime() - t0) / (double) m;
            }
            if (sink == 42) System.err.print(' ');
            return new double[]{offsetNs, tsNs};
        });
        Json params = baseParams().put("log_records", records).put("log_bytes", ulog.size())
                .put("seed", seed).put("rng", "mt19937_64");
        if (offsets) {
            emit("offset-lookup", "ns", false, res.get(0),
                    params.put("lookups", n).put("api", "UnifiedLog.read(offset, 1, LOG_END, true)"));
        }
        if (timestamps) {
            emit("timestamp-lookup", "ns", false, res.get(1),
                    params.put("lookups", m).put("api", "UnifiedLog.fetchOffsetByTimestamp(ts, Optional.empty())"));
        }
        closeAndDelete(ulog);
    }

    /** Untimed check that the two lookups answer what the workload means them to. */
    static void verifyLookups(UnifiedLog ulog, long records) throws IOException {
        Mt19937_64 rng = new Mt19937_64(7);
        for (int k = 0; k < 2000; k++) {
            long off = rng.nextMod(records);
            FetchDataInfo f = ulog.read(off, 1, FetchIsolation.LOG_END, true);
            RecordBatch b = f.records.batches().iterator().next();
            if (off < b.baseOffset() || off > b.lastOffset()) {
                throw new IllegalStateException("read(" + off + ") returned batch " + b.baseOffset() + ".." + b.lastOffset());
            }
            long got = ulog.fetchOffsetByTimestamp(T0 + off, Optional.empty()).timestampAndOffsetOpt()
                    .map(t -> t.offset).orElse(-1L);
            if (got != off) throw new IllegalStateException("fetchOffsetByTimestamp(T0 + " + off + ") = " + got);
        }
    }

    /**
     * UnifiedLog.read(next, 1 MiB, LOG_END, true) until the log end, each fetch's bytes copied out
     * with FileRecords.readInto into a direct buffer; the next fetch starts after the last whole
     * batch of the chunk. MB/s counts the bytes copied out (as seglog_bench).
     */
    static void readAll() throws Exception {
        long[] rec = new long[1];
        UnifiedLog ulog = buildLog(scratchRoot(strArg("--dir", "/tmp")), intArg("--log-bytes", 1L << 30), rec);
        final int chunk = (int) intArg("--fetch-bytes", 1 << 20);
        final ByteBuffer[] buf = {ByteBuffer.allocateDirect(chunk)};
        final long leo = ulog.logEndOffset();
        final long[] copied = new long[1];
        List<List<Double>> res = repeat("read-all", (i, w) -> {
            long next = 0, bytes = 0;
            long t0 = System.nanoTime();
            while (next < leo) {
                FetchDataInfo f = ulog.read(next, chunk, FetchIsolation.LOG_END, true);
                Records r = f.records;
                int len = r.sizeInBytes();
                if (len > buf[0].capacity()) buf[0] = ByteBuffer.allocateDirect(len);
                ByteBuffer b = buf[0];
                b.clear();
                b.limit(len);
                ((FileRecords) r).readInto(b, 0);  // reads until b is full, then flips it
                len = b.limit();
                bytes += len;
                int pos = 0;
                long last = next;
                while (pos + 61 <= len) {
                    int size = 12 + b.getInt(pos + 8);
                    if (pos + size > len) break;
                    last = b.getLong(pos) + b.getInt(pos + 23) + 1;
                    pos += size;
                }
                if (last == next) break;
                next = last;
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (next != leo) throw new IllegalStateException("read stopped at " + next + " of " + leo);
            copied[0] = bytes;
            return new double[]{bytes / 1e6 / s};
        });
        emit("read-all", "MB/s", true, res.get(0), baseParams().put("log_records", rec[0])
                .put("log_bytes", ulog.size()).put("bytes_copied", copied[0]).put("fetch_bytes", chunk)
                .put("api", "UnifiedLog.read(offset, 1 MiB, LOG_END, true) + FileRecords.readInto(direct buffer)"));
        closeAndDelete(ulog);
    }

    /**
     * Times UnifiedLog.create of a fresh copy of <dir>/<partition> with recovery point 0 and
     * lastShutdownClean=false: LogLoader recovers every segment (reads and validates every batch,
     * rebuilds the offset and time indexes, producer state and leader epochs).
     */
    static void recover() throws Exception {
        Path src = Paths.get(strArg("--dir", "/tmp/seglog-compare-recover-src"));
        String part = partitionName(src, "rec-0");
        Path work = scratchRoot("/tmp").resolve("kafka-compare-recover");
        long bytes = dirBytes(src.resolve(part), ".log");
        boolean deleteIndexes = intArg("--delete-indexes", 0) != 0;
        LogConfig config = logConfig(Map.of());
        final long[] leoOut = new long[2];
        List<List<Double>> res = repeat("recover", (i, w) -> {
            copyDir(src, work, true);
            if (deleteIndexes) {
                try (Stream<Path> s = Files.walk(work)) {
                    for (Path q : (Iterable<Path>) s::iterator) {
                        String n = q.getFileName().toString();
                        if (n.endsWith(".index") || n.endsWith(".timeindex")) Files.delete(q);
                    }
                }
            }
            ThreadCpu cpu = new ThreadCpu();
            long t0 = System.nanoTime();
            UnifiedLog ulog = openLog(work.resolve(part).toFile(), config, 0L, false);
            double s = (System.nanoTime() - t0) / 1e9;
            double[] perGb = cpu.perGb(bytes);
            leoOut[0] = ulog.logEndOffset();
            leoOut[1] = ulog.numberOfSegments();
            closeLog(ulog);
            deleteTree(work);
            return new double[]{bytes / 1e6 / s, perGb[0], perGb[1]};
        });
        Json params = baseParams().put("bytes", bytes)
                .put("log_end_offset", leoOut[0]).put("segments", leoOut[1]).put("delete_indexes", deleteIndexes)
                .put("api", "UnifiedLog.create(dir, config, 0, recoveryPoint 0, ..., lastShutdownClean false)");
        emit("recover-2GiB", "MB/s", true, res.get(0), params);
        emit("recover-2GiB", "user CPU s/GB", false, res.get(1), params);
        emit("recover-2GiB", "kernel CPU s/GB", false, res.get(2), params);
    }

    /**
     * One cleaning of a fresh copy of <dir>/<partition> (cleanup.policy=compact) by Kafka's Cleaner,
     * configured as LogCleaner's single cleaner thread is by default (128 MiB SkimpyOffsetMap with
     * MD5, 256 KiB I/O buffers, load factor 0.9, no throttle). Dirty range: log start to the active
     * segment (LogCleanerManager's bound without compaction lag or open transactions); "now" is
     * 1800000000000 as in seglog_bench. Timed: LogToClean + Cleaner.doClean.
     */
    static void clean() throws Exception {
        Path src = Paths.get(strArg("--dir", "/tmp/seglog-compare-clean-src"));
        String part = partitionName(src, "cmp-0");
        Path work = scratchRoot("/tmp").resolve("kafka-compare-clean");
        long bytes = dirBytes(src.resolve(part), ".log");
        LogConfig config = logConfig(Map.of("cleanup.policy", "compact"));
        // The broker's defaults (CleanerConfig(boolean) has test-sized ones: a 4 MiB map).
        CleanerConfig cc = new CleanerConfig(CleanerConfig.LOG_CLEANER_THREADS, CleanerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE,
                CleanerConfig.LOG_CLEANER_DEDUPE_BUFFER_LOAD_FACTOR, CleanerConfig.LOG_CLEANER_IO_BUFFER_SIZE,
                logConfig(Map.of()).maxMessageSize(), CleanerConfig.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND,
                CleanerConfig.LOG_CLEANER_BACKOFF_MS, true);
        Throttler throttler = new Throttler(cc.maxIoBytesPerSecond, 300, "cleaner-io", "bytes", Time.SYSTEM);
        Cleaner cleaner = new Cleaner(0,
                new SkimpyOffsetMap((int) Math.min(cc.dedupeBufferSize / cc.numThreads, Integer.MAX_VALUE), cc.hashAlgorithm()),
                cc.ioBufferSize / cc.numThreads / 2, cc.maxMessageSize, cc.dedupeBufferLoadFactor,
                throttler, Time.SYSTEM, tp -> { });
        final Object[] last = new Object[4];
        List<List<Double>> res = repeat("clean", (i, w) -> {
            copyDir(src, work, true);
            UnifiedLog ulog = openLog(work.resolve(part).toFile(), config, 0L, true);
            ThreadCpu cpu = new ThreadCpu();
            long t0 = System.nanoTime();
            long firstUncleanable = ulog.activeSegment().baseOffset();
            Optional<Long> unstable = ulog.firstUnstableOffset();
            if (unstable.isPresent()) firstUncleanable = Math.min(firstUncleanable, unstable.get());
            LogToClean ltc = new LogToClean(ulog, ulog.logStartOffset(), firstUncleanable, false);
            Map.Entry<Long, CleanerStats> done = cleaner.doClean(ltc, CLEAN_NOW_MS);
            double s = (System.nanoTime() - t0) / 1e9;
            double[] perGb = cpu.perGb(bytes);
            CleanerStats st = done.getValue();
            last[0] = done.getKey();
            last[1] = st.bytesRead();
            last[2] = st.bytesWritten();
            last[3] = st.messagesRead() + " read, " + st.messagesWritten() + " written";
            closeLog(ulog);
            deleteTree(work);
            return new double[]{bytes / 1e6 / s, perGb[0], perGb[1]};
        });
        Json params = baseParams().put("bytes", bytes)
                .put("cleaned_up_to", (Long) last[0]).put("bytes_read", (Long) last[1])
                .put("bytes_written", (Long) last[2]).put("messages", (String) last[3])
                .put("offset_map_bytes", cc.dedupeBufferSize).put("io_buffer_bytes", cc.ioBufferSize / cc.numThreads / 2)
                .put("hash", cc.hashAlgorithm())
                .put("api", "Cleaner.doClean(new LogToClean(log, logStart, activeSegment.baseOffset, false), now)");
        emit("clean-1GiB", "MB/s", true, res.get(0), params);
        emit("clean-1GiB", "user CPU s/GB", false, res.get(1), params);
        emit("clean-1GiB", "kernel CPU s/GB", false, res.get(2), params);
    }

    static final ConfigRepository NO_TOPIC_CONFIGS = resource -> new Properties();

    /**
     * Loads every partition directory of a fresh copy of <dir> (10,000 partitions after a clean
     * shutdown, .kafka_cleanshutdown present): by default LogManager (constructor: lock, meta.properties,
     * checkpoints; then loadLogs with num.recovery.threads.per.data.dir = --threads), or with
     * --mode unifiedlog a pool of --threads threads calling UnifiedLog.create(hadCleanShutdown true).
     * Reports seconds, and the VmRSS growth (after System.gc() before and after).
     */
    static void openMany() throws Exception {
        Path src = Paths.get(strArg("--dir", "/tmp/seglog-compare-open-src"));
        boolean copy = intArg("--copy", 1) != 0;
        Path work = copy ? scratchRoot("/tmp").resolve("kafka-compare-open") : src;
        int threads = (int) intArg("--threads", 2);
        String mode = strArg("--mode", "logmanager");
        String name = strArg("--name", "open-10k");
        LogConfig config = logConfig(Map.of());
        // Kafka keeps every segment's .log open (a FileChannel per LogSegment): it needs a
        // descriptor per segment, beyond the JVM's own (jars etc.). Below that, say so in the
        // results rather than fail half-way with "Too many open files".
        long segmentFiles = countFiles(src, ".log");
        long fdLimit = openFileLimit();
        long fdNeeded = segmentFiles + 1024;
        if (fdLimit >= 0 && fdNeeded > fdLimit && intArg("--force", 0) == 0) {
            String why = String.format("Kafka holds one open descriptor per segment: %d segments (+1024 for the JVM) "
                    + "exceed this process's open-file limit of %d (ulimit -n); not run (--force 1 to try)", segmentFiles, fdLimit);
            log("open-many: %s", why);
            Json params = baseParams().put("segments", segmentFiles).put("open_file_limit", fdLimit).put("error", why);
            emit(name, "s", false, List.of(), params);
            emit(name + "-rss", "MiB", false, List.of(), params);
            return;
        }
        File[] partitionDirs = src.toFile().listFiles(f -> f.isDirectory() && f.getName().matches(".+-\\d+"));
        final int expected = partitionDirs == null ? 0 : partitionDirs.length;
        final long[] info = new long[2];
        final List<Double> heapGrowth = new ArrayList<>();
        List<List<Double>> res = repeat("open-many", (i, w) -> {
            if (copy) copyDir(src, work, false);
            fullGc();
            long rss0 = rssKiB(), heap0 = heapUsed();
            long t0 = System.nanoTime();
            LogManager lm = null;
            List<UnifiedLog> logs = new ArrayList<>();
            if (mode.equals("logmanager")) {
                lm = new LogManager(List.of(work.toFile()), List.of(), NO_TOPIC_CONFIGS, config,
                        new CleanerConfig(false), threads, Long.MAX_VALUE, 60_000L, 60_000L, 300_000L,
                        MAX_TRANSACTION_TIMEOUT_MS, new ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS, false),
                        PRODUCER_ID_EXPIRATION_CHECK_MS, scheduler, TOPIC_STATS, new LogDirFailureChannel(1),
                        Time.SYSTEM, false, 30_000L, LogCleaner::new);
                lm.loadLogs(config, Map.of(), l -> false);
            } else if (mode.equals("unifiedlog")) {
                File[] dirs = work.toFile().listFiles(f -> f.isDirectory() && f.getName().matches(".+-\\d+"));
                if (dirs == null) throw new IOException("cannot list " + work);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<UnifiedLog>> fs = new ArrayList<>();
                for (File d : dirs) fs.add(pool.submit(() -> openLog(d, config, 0L, true)));
                for (Future<UnifiedLog> f : fs) logs.add(f.get());
                pool.shutdown();
            } else {
                throw new IllegalArgumentException("--mode logmanager|unifiedlog");
            }
            double s = (System.nanoTime() - t0) / 1e9;
            fullGc();
            long rss1 = rssKiB(), heap1 = heapUsed();
            boolean offline = lm != null && lm.hasOfflineLogDirs();
            if (lm != null) logs.addAll(lm.allLogs());
            info[0] = logs.size();
            long segs = 0;
            for (UnifiedLog l : logs) segs += l.numberOfSegments();
            info[1] = segs;
            if (!w) heapGrowth.add((heap1 - heap0) / 1048576.0);
            drain();
            if (lm != null) {
                lm.shutdown();
            } else {
                for (UnifiedLog l : logs) l.close();
            }
            int loaded = logs.size();
            logs.clear();
            drain();
            if (copy) deleteTree(work);
            if (offline || loaded != expected) {
                throw new IllegalStateException("loaded " + loaded + " of " + expected + " partitions"
                        + (offline ? "; the log dir went offline" : ""));
            }
            return new double[]{s, (rss1 - rss0) / 1024.0};
        });
        Json params = baseParams().put("partitions", info[0]).put("segments", info[1]).put("threads", threads)
                .put("open_file_limit", fdLimit)
                .put("mode", mode).put("copied", copy)
                .put("api", mode.equals("logmanager")
                        ? "new LogManager(...) + loadLogs(config, {}, l -> false)"
                        : "UnifiedLog.create(..., hadCleanShutdown true) per partition");
        emit(name, "s", false, res.get(0), params);
        emit(name + "-rss", "MiB", false, res.get(1), params.raw("heap_growth_mib_runs", list(heapGrowth)));
    }

    // ---------------------------------------------------------------- inputs written by Kafka (for testing)

    static void makeRecoverDir() throws Exception {
        Path dir = Paths.get(strArg("--dir", "/tmp/seglog-compare-recover-src"));
        deleteTree(dir);
        UnifiedLog ulog = openLog(dir.resolve("rec-0").toFile(), logConfig(Map.of()), 0L, true);
        BatchMaker m = new BatchMaker(1024, 16, intArg("--keys", 1_000_000), Compression.NONE);
        long bytes = 0, total = intArg("--bytes", 2L << 30);
        while (bytes < total) {
            MemoryRecords b = m.nextBatch();
            bytes += b.sizeInBytes();
            ulog.appendAsLeader(b, 0);
        }
        shutdownLog(ulog);  // no LogManager, so no .kafka_cleanshutdown: opening it counts as unclean
        log("wrote %d bytes to %s", bytes, dir.resolve("rec-0"));
    }

    static void makeCleanDir() throws Exception {
        Path dir = Paths.get(strArg("--dir", "/tmp/seglog-compare-clean-src"));
        deleteTree(dir);
        UnifiedLog ulog = openLog(dir.resolve("cmp-0").toFile(), logConfig(Map.of("cleanup.policy", "compact")), 0L, true);
        BatchMaker m = new BatchMaker(100, 100, intArg("--keys", 1_000_000), Compression.NONE);
        long bytes = 0, total = intArg("--bytes", 1L << 30);
        while (bytes < total) {
            MemoryRecords b = m.nextBatch();
            bytes += b.sizeInBytes();
            ulog.appendAsLeader(b, 0);
        }
        ulog.roll();
        shutdownLog(ulog);
        log("wrote %d bytes to %s", bytes, dir.resolve("cmp-0"));
    }

    static void makeOpenDir() throws Exception {
        Path dir = Paths.get(strArg("--dir", "/tmp/seglog-compare-open-src"));
        deleteTree(dir);
        long partitions = intArg("--partitions", 10_000), segments = intArg("--segments", 10);
        LogConfig c = logConfig(Map.of(LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, 600));
        MemoryRecords batch = new BatchMaker(100, 4, 1_000_000, Compression.NONE).nextBatch();
        for (long p = 0; p < partitions; p++) {
            UnifiedLog ulog = openLog(dir.resolve("scale-" + p).toFile(), c, 0L, true);
            for (long s = 0; s < segments; s++) {
                ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes()).put(batch.buffer().duplicate());
                ulog.appendAsLeader(MemoryRecords.readableRecords(copy.flip()), 0);  // offsets are assigned in place
            }
            shutdownLog(ulog);
        }
        Files.writeString(dir.resolve(".kafka_cleanshutdown"), "{\"version\":0,\"brokerEpoch\":-1}");
        log("wrote %d partitions x %d segments to %s", partitions, segments, dir);
    }

    // ---------------------------------------------------------------- main

    public static void main(String[] argv) throws Exception {
        if (argv.length < 1 || argv[0].equals("-h") || argv[0].equals("--help")) {
            System.err.println("usage: kafka_bench.sh append|append-sweep|lookup|offset-lookup|timestamp-lookup|read-all|"
                    + "recover|clean|open-many|make-recover-dir|make-clean-dir|make-open-dir [--flag value]...");
            System.exit(2);
        }
        String mode = argv[0];
        for (int i = 1; i < argv.length; i++) {
            if (!argv[i].startsWith("--")) throw new IllegalArgumentException("expected --flag, got " + argv[i]);
            if (i + 1 >= argv.length) throw new IllegalArgumentException("missing value for " + argv[i]);
            args.put(argv[i], argv[++i]);
        }
        if (!Mt19937_64.selfTest()) throw new IllegalStateException("Mt19937_64 self-test failed");
        scheduler = new KafkaScheduler(1, true, "kafka-bench-scheduler-");
        scheduler.startup();
        int rc = 0;
        try {
            switch (mode) {
                case "append": {
                    String c = strArg("--codec", "none");
                    int size = (int) intArg("--record-size", 1024), batch = (int) intArg("--batch-records", 16);
                    append(appendName(size, batch, c), size, batch, intArg("--total-bytes", 1L << 30), c);
                    break;
                }
                case "append-sweep":
                    for (int size : new int[]{10, 100, 1000, 10000}) {
                        int batch = Math.max(1, 16384 / (size + 20));
                        append("append-sweep-" + size + "B", size, batch, intArg("--total-bytes", 256L << 20), "none");
                    }
                    break;
                case "lookup": lookup(true, true); break;
                case "offset-lookup": lookup(true, false); break;
                case "timestamp-lookup": lookup(false, true); break;
                case "read-all": readAll(); break;
                case "recover": recover(); break;
                case "clean": clean(); break;
                case "open-many": openMany(); break;
                case "make-recover-dir": makeRecoverDir(); break;
                case "make-clean-dir": makeCleanDir(); break;
                case "make-open-dir": makeOpenDir(); break;
                default:
                    System.err.println("kafka_bench: unknown workload " + mode);
                    rc = 2;
            }
            drain();
        } catch (Throwable t) {
            t.printStackTrace();
            rc = 1;
        } finally {
            scheduler.shutdown();
        }
        System.out.flush();
        System.exit(rc);
    }
}
