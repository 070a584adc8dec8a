import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Helper of interop/kafka/broker/compaction_check.sh (compiled by `broker.sh classpath`).
 *
 *   CompactTool produce <bootstrap> <topic> <partitions> <keys> <records per run> <seed>
 *     creates <topic> (cleanup.policy=delete for now, segment.bytes=1048576, retention off,
 *     CreateTime) and sends, per codec run (none gzip snappy lz4 zstd none; one idempotent
 *     KafkaProducer each), <records per run> keyed records: keys "key-%05d" (the first <keys>
 *     records of the first run write every key once, then a fixed-seed mix of hot and uniform
 *     keys), partition = key number mod <partitions>, ~5% tombstones (null value), a few empty
 *     values and headers, values "key-NNNNN#<write count> codec=<c>|<fixed-seed base64>".
 *     Batch boundaries come from flush() (long linger), cycling through a fixed schedule.
 *     CreateTimes: runs 0-2 in November 2023 (their producers are expired, > producer.id.expiration.ms
 *     = 1 day, when the log is loaded again: the cleaner then keeps no batch for their sake), runs
 *     3-5 two hours before now (active producers: the cleaner keeps each one's last batch, if need
 *     be as an empty batch). The jump in time rolls a segment (segment.ms, 7 days) at run 3.
 *     Then a 7th producer sends one "tail" record per partition with a value of 1,000,000 bytes,
 *     which no longer fits in the active segment (segment.bytes) and so rolls a new one: all of
 *     the workload sits in closed (cleanable) segments.
 *   CompactTool alter <bootstrap> <topic> <k=v,k=v...>
 *     incrementalAlterConfigs SET of the given topic configs; prints the topic's overrides after.
 *   CompactTool list <log dir> <topic> <out prefix>
 *     reads every partition directory <topic>-N with Kafka's FileRecords (CRC checked) and writes
 *     <out prefix>.records  "p offset ts key value headers" (data records; null value -> null),
 *     <out prefix>.batches  one line per batch (header fields, size, crc),
 *     <out prefix>.segments "p baseOffset logBytes".
 *   CompactTool json <seglog consume --format json output> <out>
 *     writes the records in the .records format above (sorted by partition, offset).
 *   CompactTool expect <prefix of a list of the uncleaned dir> <out>
 *     the records a cleaning round up to the active segment must keep, by the definition of
 *     compaction: below the active segment's base offset, the last record of every key (a
 *     tombstone too: its delete horizon has not even been set yet); from it on, every record.
 */
public class CompactTool {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd", "none"};
    static final int[] FLUSH_EVERY = {1, 3, 40, 200, 17, 600, 2, 90, 7, 333};
    static final long OLD_BASE_TS = 1700000000000L;
    static final int FIRST_RECENT_RUN = 3;
    static final int TAIL_VALUE_BYTES = 1000000;
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static final Pattern LOG = Pattern.compile("^(\\d{20})\\.log$");

    public static void main(String[] args) throws Exception {
        if (args.length == 7 && args[0].equals("produce")) {
            produce(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), Long.parseLong(args[6]));
        } else if (args.length == 4 && args[0].equals("alter")) {
            alter(args[1], args[2], args[3]);
        } else if (args.length == 4 && args[0].equals("list")) {
            list(Path.of(args[1]), args[2], args[3]);
        } else if (args.length == 3 && args[0].equals("json")) {
            json(Path.of(args[1]), Path.of(args[2]));
        } else if (args.length == 3 && args[0].equals("expect")) {
            expect(args[1], Path.of(args[2]));
        } else {
            System.err.println("usage: CompactTool produce <bootstrap> <topic> <partitions> <keys> <per run> <seed>"
                    + " | alter <bootstrap> <topic> <k=v,...> | list <logdir> <topic> <prefix>"
                    + " | json <in> <out> | expect <prefix> <out>");
            System.exit(2);
        }
    }

    // ---------------------------------------------------------------- produce

    static Properties producerProps(String bootstrap, String clientId, String codec) {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return pp;
    }

    static void produce(String bootstrap, String topic, int parts, int keys, int perRun, long seed) throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            Map<String, String> cfg = new TreeMap<>();
            cfg.put("cleanup.policy", "delete");
            cfg.put("segment.bytes", "1048576");
            cfg.put("retention.ms", "-1");
            cfg.put("retention.bytes", "-1");
            cfg.put("message.timestamp.type", "CreateTime");
            cfg.put("compression.type", "producer");
            admin.createTopics(List.of(new NewTopic(topic, parts, (short) 1).configs(cfg))).all().get();
        }
        Random r = new Random(seed);
        int hot = Math.max(1, keys / 40);
        int[] writes = new int[keys];
        long[] next = new long[parts];
        long total = 0, tombstones = 0, empties = 0, withHeaders = 0, bytes = 0;
        int flushIdx = 0, sinceFlush = 0;
        long now = System.currentTimeMillis();
        long recentBase = now - 2 * 3600 * 1000L;
        long baseTs = OLD_BASE_TS, baseTotal = 0;
        for (int run = 0; run < CODECS.length; run++) {
            if (run == FIRST_RECENT_RUN) {
                baseTs = recentBase;
                baseTotal = total;
            }
            String codec = CODECS[run];
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            List<long[]> expect = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer =
                         new KafkaProducer<>(producerProps(bootstrap, "seglog-compact-" + run + "-" + codec, codec))) {
                producer.partitionsFor(topic);
                for (int i = 0; i < perRun; i++) {
                    int k;
                    if (run == 0 && i < keys) k = i;                       // every key at least once
                    else if (r.nextInt(100) < 30) k = r.nextInt(hot);     // hot keys: many versions
                    else k = r.nextInt(keys);
                    int p = k % parts;
                    int w = ++writes[k];
                    byte[] key = String.format("key-%05d", k).getBytes(StandardCharsets.US_ASCII);
                    byte[] value;
                    int roll = r.nextInt(1000);
                    if (roll < 50) {
                        value = null;
                        tombstones++;
                    } else if (roll < 52) {
                        value = new byte[0];
                        empties++;
                    } else {
                        StringBuilder sb = new StringBuilder(String.format("key-%05d#%d codec=%s|", k, w, codec));
                        int len = 16 + r.nextInt(240);
                        for (int j = 0; j < len; j++) sb.append(ALPHABET.charAt(r.nextInt(64)));
                        value = sb.toString().getBytes(StandardCharsets.US_ASCII);
                        bytes += value.length;
                    }
                    // Mostly increasing CreateTime, now and then one from the past.
                    long ts = baseTs + 5 * (total - baseTotal) - (total % 101 == 7 ? 20000 : 0);
                    ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, p, ts, key, value);
                    if (total % 37 == 11) {
                        rec.headers().add(new RecordHeader("w", Integer.toString(w).getBytes(StandardCharsets.US_ASCII)));
                        withHeaders++;
                    }
                    futures.add(producer.send(rec));
                    expect.add(new long[] {p, next[p]++});
                    total++;
                    if (++sinceFlush >= FLUSH_EVERY[flushIdx]) {
                        producer.flush();
                        sinceFlush = 0;
                        flushIdx = (flushIdx + 1) % FLUSH_EVERY.length;
                    }
                }
                producer.flush();
            }
            checkOffsets(futures, expect);
            System.out.printf("produce: run %d (%s) done, %d records so far%n", run, codec, total);
        }
        // The tail: one record per partition too large for what is left of the active segment.
        {
            byte[] value = new byte[TAIL_VALUE_BYTES];
            Arrays.fill(value, (byte) 't');
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            List<long[]> expect = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer =
                         new KafkaProducer<>(producerProps(bootstrap, "seglog-compact-tail", "none"))) {
                for (int p = 0; p < parts; p++) {
                    byte[] key = String.format("tail-%d", p).getBytes(StandardCharsets.US_ASCII);
                    futures.add(producer.send(new ProducerRecord<>(topic, p, now, key, value)));
                    expect.add(new long[] {p, next[p]++});
                }
                producer.flush();
            }
            checkOffsets(futures, expect);
        }
        int used = 0;
        for (int w : writes) if (w > 0) used++;
        StringBuilder ends = new StringBuilder();
        for (int p = 0; p < parts; p++) ends.append(p == 0 ? "" : " ").append(topic).append('-').append(p).append('=').append(next[p]);
        System.out.printf("produce: %d records over %d keys (%d tombstones, %d empty values, %d with headers, %d value bytes)"
                + " + %d tail records; log end offsets %s%n", total, used, tombstones, empties, withHeaders, bytes, parts, ends);
    }

    static void checkOffsets(List<Future<RecordMetadata>> futures, List<long[]> expect) throws Exception {
        for (int i = 0; i < futures.size(); i++) {
            RecordMetadata md = futures.get(i).get();
            long[] e = expect.get(i);
            if (md.partition() != e[0] || md.offset() != e[1])
                throw new IllegalStateException("record for partition " + e[0] + " offset " + e[1]
                        + " landed at " + md.partition() + "/" + md.offset());
        }
    }

    // ---------------------------------------------------------------- alter

    static void alter(String bootstrap, String topic, String kvs) throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        List<AlterConfigOp> ops = new ArrayList<>();
        for (String kv : kvs.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("not k=v: " + kv);
            ops.add(new AlterConfigOp(new ConfigEntry(kv.substring(0, eq), kv.substring(eq + 1)), AlterConfigOp.OpType.SET));
        }
        try (Admin admin = Admin.create(ap)) {
            admin.incrementalAlterConfigs(Map.of(res, ops)).all().get();
            Config c = admin.describeConfigs(List.of(res)).all().get().get(res);
            StringBuilder sb = new StringBuilder();
            for (ConfigEntry e : c.entries()) {
                if (e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
                    sb.append(sb.length() == 0 ? "" : ",").append(e.name()).append('=').append(e.value());
            }
            System.out.println("topic " + topic + " overrides: " + sb);
        }
    }

    // ---------------------------------------------------------------- list

    /** A key or value for the listings: quoted, non-printables as \\xHH; a long one (the tail
     *  records) as its first 32 bytes, its length and CRC32C. */
    static String text(ByteBuffer b) {
        if (b == null) return "null";
        StringBuilder sb = new StringBuilder("\"");
        ByteBuffer d = b.duplicate();
        String suffix = "";
        if (d.remaining() > 1024) {
            CRC32C crc = new CRC32C();
            crc.update(d.duplicate());
            suffix = String.format("...(%d bytes, crc32c %08x)", d.remaining(), crc.getValue());
            d.limit(d.position() + 32);
        }
        while (d.hasRemaining()) {
            int c = d.get() & 0xff;
            if (c >= 0x21 && c < 0x7f && c != '"' && c != '\\') sb.append((char) c);
            else sb.append(String.format("\\x%02x", c));
        }
        return sb.append('"').append(suffix).toString();
    }

    static String text(byte[] b) { return b == null ? "null" : text(ByteBuffer.wrap(b)); }

    static List<Long> bases(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(f -> {
                Matcher m = LOG.matcher(f.getFileName().toString());
                if (m.matches()) out.add(Long.parseLong(m.group(1)));
            });
        }
        out.sort(null);
        return out;
    }

    static void list(Path logDir, String topic, String prefix) throws IOException {
        TreeMap<Integer, Path> parts = new TreeMap<>();
        Pattern pd = Pattern.compile("^" + Pattern.quote(topic) + "-(\\d+)$");
        try (Stream<Path> s = Files.list(logDir)) {
            s.forEach(f -> {
                Matcher m = pd.matcher(f.getFileName().toString());
                if (m.matches() && Files.isDirectory(f)) parts.put(Integer.parseInt(m.group(1)), f);
            });
        }
        if (parts.isEmpty()) throw new IllegalStateException("no " + topic + "-N directories in " + logDir);
        long nrec = 0, nbatch = 0;
        try (BufferedWriter rw = Files.newBufferedWriter(Path.of(prefix + ".records"));
             BufferedWriter bw = Files.newBufferedWriter(Path.of(prefix + ".batches"));
             BufferedWriter sw = Files.newBufferedWriter(Path.of(prefix + ".segments"))) {
            for (Map.Entry<Integer, Path> e : parts.entrySet()) {
                int p = e.getKey();
                long expectNext = -1;
                for (long base : bases(e.getValue())) {
                    File f = e.getValue().resolve(String.format("%020d.log", base)).toFile();
                    sw.write(p + " " + base + " " + f.length() + "\n");
                    try (FileRecords fr = FileRecords.open(f, false)) {
                        long pos = 0;
                        for (FileChannelRecordBatch b : fr.batches()) {
                            b.ensureValid();
                            if (b.baseOffset() < expectNext)
                                throw new IllegalStateException(topic + "-" + p + ": batch " + b.baseOffset() + " after offset " + (expectNext - 1));
                            expectNext = b.nextOffset();
                            Integer count = b.countOrNull();
                            bw.write(String.format("%d %d..%d count=%s codec=%s pid=%d epoch=%d seq=%d..%d txn=%b control=%b"
                                            + " ple=%d %s maxTs=%d deleteHorizon=%s size=%d crc=%d segment=%d pos=%d%n",
                                    p, b.baseOffset(), b.lastOffset(), count, b.compressionType().name, b.producerId(),
                                    b.producerEpoch(), b.baseSequence(), b.lastSequence(), b.isTransactional(),
                                    b.isControlBatch(), b.partitionLeaderEpoch(), b.timestampType(), b.maxTimestamp(),
                                    b.deleteHorizonMs().isPresent() ? Long.toString(b.deleteHorizonMs().getAsLong()) : "none",
                                    b.sizeInBytes(), b.checksum(), base, b.position()));
                            nbatch++;
                            pos += b.sizeInBytes();
                            if (b.isControlBatch()) continue;  // consumers never see control records
                            for (Record r : b) {
                                StringBuilder sb = new StringBuilder();
                                sb.append(p).append(' ').append(r.offset()).append(" ts=").append(r.timestamp()).append(' ')
                                        .append(text(r.key())).append(' ').append(text(r.value())).append(" [");
                                Header[] hs = r.headers();
                                for (int i = 0; i < hs.length; i++)
                                    sb.append(i == 0 ? "" : ",").append(hs[i].key()).append('=').append(text(hs[i].value()));
                                rw.write(sb.append("]\n").toString());
                                nrec++;
                            }
                        }
                        if (pos != f.length())
                            throw new IllegalStateException(f + ": " + (f.length() - pos) + " bytes after the last complete batch");
                    }
                }
            }
        }
        System.out.printf("list: %d partitions, %d batches, %d records%n", parts.size(), nbatch, nrec);
    }

    // ---------------------------------------------------------------- json (seglog consume)

    static void json(Path in, Path out) throws IOException {
        ObjectMapper om = new ObjectMapper();
        TreeMap<Long, String> sorted = new TreeMap<>();  // key = partition << 40 | offset
        for (String line : Files.readAllLines(in, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonNode j = om.readTree(line);
            int p = j.get("partition").asInt();
            long off = j.get("offset").asLong();
            StringBuilder sb = new StringBuilder();
            sb.append(p).append(' ').append(off).append(" ts=").append(j.get("timestamp").asLong()).append(' ')
                    .append(jtext(j.get("key"))).append(' ').append(jtext(j.get("value"))).append(" [");
            int i = 0;
            for (JsonNode h : j.get("headers"))
                sb.append(i++ == 0 ? "" : ",").append(h.get("key").asText()).append('=').append(jtext(h.get("value")));
            sorted.put(((long) p << 40) | off, sb.append("]").toString());
        }
        Files.write(out, sorted.values(), StandardCharsets.UTF_8);
        System.out.printf("json: %d records%n", sorted.size());
    }

    static String jtext(JsonNode n) {
        if (n == null || n.isNull()) return "null";
        return text(n.asText().getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- expect

    static void expect(String prefix, Path out) throws IOException {
        Map<Integer, Long> active = new HashMap<>();
        for (String l : Files.readAllLines(Path.of(prefix + ".segments"))) {
            String[] f = l.split(" ");
            active.merge(Integer.parseInt(f[0]), Long.parseLong(f[1]), Math::max);
        }
        List<String> recs = Files.readAllLines(Path.of(prefix + ".records"));
        Map<String, Long> last = new HashMap<>();  // "p key" -> last offset below the active segment
        for (String l : recs) {
            String[] f = l.split(" ", 5);
            int p = Integer.parseInt(f[0]);
            long off = Long.parseLong(f[1]);
            if (off < active.get(p)) last.put(p + " " + f[3], off);
        }
        List<String> keep = new ArrayList<>();
        for (String l : recs) {
            String[] f = l.split(" ", 5);
            int p = Integer.parseInt(f[0]);
            long off = Long.parseLong(f[1]);
            if (off >= active.get(p) || last.get(p + " " + f[3]) == off) keep.add(l);
        }
        Files.write(out, keep, StandardCharsets.UTF_8);
        System.out.printf("expect: %d of %d records survive (%d partition-keys)%n", keep.size(), recs.size(), last.size());
    }
}
