import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produce <bootstrap> <outdir>
 *
 * Creates one single-partition topic per codec (kw-none, kw-gzip, kw-snappy, kw-lz4, kw-zstd;
 * segment.bytes=1048576, retention off) and sends a deterministic workload with KafkaProducer:
 * keys k-%06d, fixed timestamps 1700000000000 + 10*i, fixed-seed values, a few null/empty values
 * and headers. Batch boundaries come from flush(): linger.ms is long and batch.size large, so
 * each flush sends exactly the records appended since the previous one as one batch.
 *
 * Phases per topic (N = 90 + 100*K records; K=25 for none, 19 for the compressed topics):
 *   offsets 0..9      10 batches of 1
 *   offsets 10..49     4 batches of 10
 *   offsets 50..50+100K-1  K batches of 100
 *   then 10 batches of 1 and 3 batches of 10 (the last 40 records)
 *
 * Writes <outdir>/<topic>.sent.jsonl: one JSON object per record sent, with the offset the broker
 * acknowledged (used by Lookups to cross-check Kafka's reading of the copied files).
 */
public class Produce {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
    static final long BASE_TS = 1700000000000L;
    static final long TS_STEP = 10L;
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static final String LOREM = " lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor;";

    static int hundredBatches(String codec) { return codec.equals("none") ? 25 : 19; }

    static int recordCount(String codec) { return 90 + 100 * hundredBatches(codec); }

    /** Batch sizes, in order, as the flush() schedule. */
    static List<Integer> schedule(String codec) {
        List<Integer> s = new ArrayList<>();
        for (int i = 0; i < 10; i++) s.add(1);
        for (int i = 0; i < 4; i++) s.add(10);
        for (int i = 0; i < hundredBatches(codec); i++) s.add(100);
        for (int i = 0; i < 10; i++) s.add(1);
        for (int i = 0; i < 3; i++) s.add(10);
        return s;
    }

    static byte[] key(int i) { return String.format("k-%06d", i).getBytes(StandardCharsets.US_ASCII); }

    static long timestamp(int i) { return BASE_TS + TS_STEP * i; }

    /** Value of record i; r is the topic's Random(seed), consumed in record order. */
    static byte[] value(String codec, int i, Random r) {
        if (i % 97 == 13) return null;
        if (i % 89 == 7) return new byte[0];
        boolean compressible = !codec.equals("none");
        int size;
        if (compressible) size = 1 + r.nextInt(400);
        else if (i % 500 == 123) size = 8000 + r.nextInt(8000);
        else size = 1 + r.nextInt(2000);
        byte[] v = new byte[size];
        if (compressible) {
            byte[] pat = (String.format("v-%06d", i) + LOREM).getBytes(StandardCharsets.US_ASCII);
            for (int j = 0; j < size; j++) v[j] = pat[j % pat.length];
        } else {
            for (int j = 0; j < size; j++) v[j] = (byte) ALPHABET.charAt(r.nextInt(ALPHABET.length()));
        }
        return v;
    }

    static List<Header> headers(int i) {
        List<Header> h = new ArrayList<>();
        if (i % 50 == 25) h.add(new RecordHeader("h", String.format("x-%06d", i).getBytes(StandardCharsets.US_ASCII)));
        if (i % 50 == 26) {
            h.add(new RecordHeader("a", "1".getBytes(StandardCharsets.US_ASCII)));
            h.add(new RecordHeader("b", (byte[]) null));
        }
        return h;
    }

    static long seed(String codec) {
        for (int c = 0; c < CODECS.length; c++) if (CODECS[c].equals(codec)) return 0x5E61060000L + c;
        throw new IllegalArgumentException(codec);
    }

    static String jstr(byte[] b) {
        if (b == null) return "null";
        StringBuilder sb = new StringBuilder("\"");
        for (byte x : b) {
            int c = x & 0xff;
            if (c == '"' || c == '\\') sb.append('\\').append((char) c);
            else if (c < 0x20 || c >= 0x7f) sb.append(String.format("\\u%04x", c));
            else sb.append((char) c);
        }
        return sb.append('"').toString();
    }

    static long crc32c(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Produce <bootstrap> <outdir>");
            System.exit(2);
        }
        String bootstrap = args[0];
        Path outdir = Path.of(args[1]);
        Files.createDirectories(outdir);

        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String codec : CODECS) {
                Map<String, String> cfg = new HashMap<>();
                cfg.put("segment.bytes", "1048576");
                cfg.put("retention.ms", "-1");
                cfg.put("retention.bytes", "-1");
                cfg.put("message.timestamp.type", "CreateTime");
                cfg.put("compression.type", "producer");
                topics.add(new NewTopic("kw-" + codec, 1, (short) 1).configs(cfg));
            }
            admin.createTopics(topics).all().get();
        }

        for (String codec : CODECS) produceTopic(bootstrap, codec, outdir);
    }

    static void produceTopic(String bootstrap, String codec, Path outdir) throws IOException, InterruptedException, ExecutionException {
        String topic = "kw-" + codec;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "seglog-fixture-" + codec);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "1000000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());

        Random r = new Random(seed(codec));
        int n = recordCount(codec);
        List<Future<RecordMetadata>> futures = new ArrayList<>(n);
        List<String> lines = new ArrayList<>(n);
        List<Integer> sched = schedule(codec);
        long valueBytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(topic); // wait for metadata before the first timed batch
            int i = 0;
            for (int batch : sched) {
                for (int j = 0; j < batch; j++, i++) {
                    byte[] k = key(i);
                    byte[] v = value(codec, i, r);
                    List<Header> hs = headers(i);
                    long ts = timestamp(i);
                    futures.add(producer.send(new ProducerRecord<>(topic, 0, ts, k, v, hs)));
                    StringBuilder sb = new StringBuilder();
                    sb.append("{\"i\":").append(i).append(",\"timestamp\":").append(ts)
                      .append(",\"key\":").append(jstr(k))
                      .append(",\"vlen\":").append(v == null ? -1 : v.length)
                      .append(",\"vcrc32c\":").append(v == null ? "null" : Long.toString(crc32c(v)))
                      .append(",\"headers\":[");
                    for (int h = 0; h < hs.size(); h++) {
                        if (h > 0) sb.append(',');
                        sb.append("{\"key\":").append(jstr(hs.get(h).key().getBytes(StandardCharsets.UTF_8)))
                          .append(",\"value\":").append(jstr(hs.get(h).value())).append('}');
                    }
                    sb.append("]");
                    lines.add(sb.toString());
                    if (v != null) valueBytes += v.length;
                }
                producer.flush();
            }
            if (i != n) throw new IllegalStateException("schedule covers " + i + " records, expected " + n);
        }
        try (BufferedWriter w = Files.newBufferedWriter(outdir.resolve(topic + ".sent.jsonl"))) {
            for (int i = 0; i < n; i++) {
                RecordMetadata md = futures.get(i).get();
                if (md.offset() != i) throw new IllegalStateException(topic + ": record " + i + " got offset " + md.offset());
                if (md.timestamp() != timestamp(i)) throw new IllegalStateException(topic + ": record " + i + " timestamp " + md.timestamp());
                w.write(lines.get(i) + ",\"offset\":" + md.offset() + "}\n");
            }
        }
        System.out.printf("%s: %d records, %d batches, %d value bytes, offsets 0..%d%n",
                topic, n, sched.size(), valueBytes, n - 1);
    }
}
