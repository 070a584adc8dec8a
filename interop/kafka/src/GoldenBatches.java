import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * GoldenBatches &lt;outdir&gt;
 *
 * Writes record-batch byte vectors produced by Kafka's own MemoryRecordsBuilder into
 * &lt;outdir&gt;/batches/&lt;name&gt;.bin, a small log segment into &lt;outdir&gt;/segment/00000000000000000000.log
 * (plus Kafka's DumpLogSegments output for it in segment/dump.txt), and describes everything in
 * &lt;outdir&gt;/manifest.json using Kafka's own batch/record accessors on the produced bytes.
 *
 * Everything is deterministic: fixed timestamps, fixed java.util.Random seeds, no wall clock.
 */
public final class GoldenBatches {

    static final long T0 = 1_700_000_000_000L;            // base CreateTime for most cases
    static final long LOG_APPEND_TIME = 1_700_000_099_999L;
    static final long DELETE_HORIZON = 1_700_000_500_000L;
    static final int LARGE_VALUE_SIZE = 100 * 1024;

    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    /** One golden case: a name, a relative file and the bytes written there. */
    static final class Case {
        final String name;
        final String file;
        final byte[] bytes;

        Case(String name, String file, byte[] bytes) {
            this.name = name;
            this.file = file;
            this.bytes = bytes;
        }
    }

    /** Parameters of one MemoryRecordsBuilder invocation (defaults: v2, CreateTime, offset 0, no producer). */
    static final class Spec {
        byte magic = RecordBatch.MAGIC_VALUE_V2;
        Compression compression = Compression.NONE;
        TimestampType timestampType = TimestampType.CREATE_TIME;
        long baseOffset = 0;
        long logAppendTime = RecordBatch.NO_TIMESTAMP;
        long producerId = RecordBatch.NO_PRODUCER_ID;
        short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        int baseSequence = RecordBatch.NO_SEQUENCE;
        boolean transactional = false;
        boolean control = false;
        int partitionLeaderEpoch = 0;
        long deleteHorizonMs = RecordBatch.NO_TIMESTAMP;

        Spec codec(String c) { compression = compression(c); return this; }
        Spec comp(Compression c) { compression = c; return this; }
        Spec magic(byte m) { magic = m; return this; }
        Spec ts(TimestampType t) { timestampType = t; return this; }
        Spec base(long o) { baseOffset = o; return this; }
        Spec logAppend(long t) { logAppendTime = t; return this; }
        Spec producer(long pid, int epoch, int seq) {
            producerId = pid; producerEpoch = (short) epoch; baseSequence = seq; return this;
        }
        Spec txn() { transactional = true; return this; }
        Spec control() { control = true; return this; }
        Spec ple(int e) { partitionLeaderEpoch = e; return this; }
        Spec deleteHorizon(long t) { deleteHorizonMs = t; return this; }
    }

    static Compression compression(String codec) {
        switch (codec) {
            case "none": return Compression.NONE;
            case "gzip": return Compression.gzip().build();
            case "snappy": return Compression.snappy().build();
            case "lz4": return Compression.lz4().build();
            case "zstd": return Compression.zstd().build();
            default: throw new IllegalArgumentException("codec " + codec);
        }
    }

    /** Runs the builder and returns the exact bytes of the resulting MemoryRecords buffer. */
    static byte[] build(Spec s, Consumer<MemoryRecordsBuilder> body) {
        ByteBufferOutputStream out = new ByteBufferOutputStream(ByteBuffer.allocate(512));
        // (ByteBufferOutputStream, magic, compression, timestampType, baseOffset, logAppendTime,
        //  producerId, producerEpoch, baseSequence, isTransactional, isControlBatch,
        //  partitionLeaderEpoch, writeLimit, deleteHorizonMs)
        MemoryRecordsBuilder b = new MemoryRecordsBuilder(out, s.magic, s.compression, s.timestampType,
                s.baseOffset, s.logAppendTime, s.producerId, s.producerEpoch, s.baseSequence,
                s.transactional, s.control, s.partitionLeaderEpoch, Integer.MAX_VALUE, s.deleteHorizonMs);
        body.accept(b);
        MemoryRecords records = b.build();
        ByteBuffer buf = records.buffer().duplicate();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return bytes;
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) o.write(p, 0, p.length);
        return o.toByteArray();
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** ~100 KiB of text-like bytes: words and numbers drawn from a fixed-seed PRNG. */
    static byte[] largeValue(int size, long seed) {
        String[] words = {
            "segment", "offset", "index", "batch", "record", "leader", "epoch", "producer",
            "sequence", "timestamp", "compaction", "retention", "partition", "replica", "fetch",
            "append", "checksum", "varint", "header", "tombstone", "horizon", "transaction",
            "marker", "abort", "commit", "snapshot", "cleaner", "roll", "flush", "mmap",
            "the", "a", "of", "and", "to", "in", "is", "for", "on", "with"};
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder(size + 64);
        while (sb.length() < size) {
            int k = r.nextInt(10);
            if (k < 7) {
                sb.append(words[r.nextInt(words.length)]);
            } else if (k < 9) {
                sb.append(r.nextInt(1_000_000));
            } else {
                // a few pseudo-random base-64-ish characters to keep the entropy non-trivial
                for (int i = 0; i < 6; i++) sb.append((char) ('0' + r.nextInt(75)));
            }
            sb.append(r.nextInt(12) == 0 ? '\n' : ' ');
        }
        byte[] all = sb.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[size];
        System.arraycopy(all, 0, out, 0, size);
        return out;
    }

    static Header[] richHeaders() {
        return new Header[] {
            new RecordHeader("h1", utf8("v1")),
            new RecordHeader("null-value", null),
            new RecordHeader("empty-value", new byte[0]),
            new RecordHeader("h1", utf8("duplicate key, second value")),
            new RecordHeader("utf8-\u00e9\u4e2d", new byte[] {0, 1, 2, (byte) 0xff}),
            new RecordHeader("", utf8("empty header key")),
        };
    }

    final List<Case> cases = new ArrayList<>();
    final byte[] large = largeValue(LARGE_VALUE_SIZE, 0x5E6L);
    final List<String> notes = new ArrayList<>();

    void add(String name, byte[] bytes) {
        for (Case c : cases) {
            if (c.name.equals(name)) throw new IllegalStateException("duplicate case " + name);
        }
        cases.add(new Case(name, "batches/" + name + ".bin", bytes));
    }

    // ---------------------------------------------------------------------------------------------

    void shapeMatrix() {
        String[] keyNames = {"nullkey", "emptykey", "smallkey"};
        byte[][] keys = {null, new byte[0], utf8("key-1")};
        String[] valueNames = {"nullval", "emptyval", "smallval", "largeval"};
        byte[][] values = {null, new byte[0], utf8("hello, seglog"), large};
        for (String codec : CODECS) {
            for (int k = 0; k < keys.length; k++) {
                for (int v = 0; v < values.length; v++) {
                    for (int h = 0; h < 2; h++) {
                        final byte[] key = keys[k];
                        final byte[] value = values[v];
                        final Header[] headers = h == 0 ? Record.EMPTY_HEADERS : richHeaders();
                        String name = codec + "_" + keyNames[k] + "_" + valueNames[v] + (h == 0 ? "_nohdr" : "_hdr");
                        add(name, build(new Spec().codec(codec), b -> b.append(T0, key, value, headers)));
                    }
                }
            }
        }
    }

    void perCodec(String c) {
        // Control batches: COMMIT and ABORT end-transaction markers (builder.appendEndTxnMarker).
        add(c + "_control_commit", build(new Spec().codec(c).base(500).ple(3).producer(4242, 5, RecordBatch.NO_SEQUENCE).txn().control(),
                b -> b.appendEndTxnMarker(T0 + 500, new EndTransactionMarker(ControlRecordType.COMMIT, 17))));
        add(c + "_control_abort", build(new Spec().codec(c).base(501).ple(3).producer(4242, 6, RecordBatch.NO_SEQUENCE).txn().control(),
                b -> b.appendEndTxnMarker(T0 + 501, new EndTransactionMarker(ControlRecordType.ABORT, Integer.MAX_VALUE))));

        // Transactional data batch.
        add(c + "_txn", build(new Spec().codec(c).base(490).producer(4242, 5, 10).txn(), b -> {
            b.append(T0 + 1, utf8("tk0"), utf8("tv0"));
            b.append(T0 + 2, utf8("tk1"), utf8("tv1"));
            b.append(T0 + 3, null, utf8("tv2"));
        }));

        // Idempotent producer (non-transactional) and one whose sequence wraps past Integer.MAX_VALUE.
        add(c + "_idempotent", build(new Spec().codec(c).producer(9001, 0, 42), b -> {
            for (int i = 0; i < 3; i++) b.append(T0 + i, utf8("ik" + i), utf8("iv" + i));
        }));
        add(c + "_idempotent_wrap", build(new Spec().codec(c).base(77).producer(9001, 1, Integer.MAX_VALUE - 1), b -> {
            for (int i = 0; i < 4; i++) b.append(T0 + i, utf8("wk" + i), utf8("wv" + i));
        }));
        add(c + "_idempotent_max_epoch", build(new Spec().codec(c).producer(Long.MAX_VALUE - 1, Short.MAX_VALUE, 0), b -> {
            b.append(T0, utf8("mk"), utf8("mv"));
        }));

        // LogAppendTime: record timestamps are replaced by the batch's maxTimestamp on read.
        add(c + "_logappendtime", build(new Spec().codec(c).ts(TimestampType.LOG_APPEND_TIME).logAppend(LOG_APPEND_TIME), b -> {
            b.append(T0 + 10, utf8("lk0"), utf8("lv0"));
            b.append(T0 - 10, utf8("lk1"), utf8("lv1"));
            b.append(T0 + 5, utf8("lk2"), null);
        }));

        // Non-zero base offsets.
        add(c + "_base1000", build(new Spec().codec(c).base(1000), b -> {
            b.append(T0, utf8("a"), utf8("offset 1000"));
            b.append(T0 + 1, utf8("b"), utf8("offset 1001"));
        }));
        add(c + "_base2p40", build(new Spec().codec(c).base(1L << 40), b -> {
            b.append(T0, utf8("a"), utf8("offset 2^40"));
            b.append(T0 + 1, utf8("b"), utf8("offset 2^40+1"));
        }));

        // Partition leader epochs (0 is the default of all other v2 cases).
        add(c + "_ple0", build(new Spec().codec(c).ple(0), b -> b.append(T0, utf8("k"), utf8("ple 0"))));
        add(c + "_ple7", build(new Spec().codec(c).ple(7), b -> b.append(T0, utf8("k"), utf8("ple 7"))));
        add(c + "_pleneg1", build(new Spec().codec(c).ple(RecordBatch.NO_PARTITION_LEADER_EPOCH),
                b -> b.append(T0, utf8("k"), utf8("ple -1"))));

        // Several records with varied timestamps; the third is below the first (negative delta).
        add(c + "_multi_ts", build(new Spec().codec(c).base(10), b -> {
            b.append(T0, utf8("m0"), utf8("first"));
            b.append(T0 + 5, null, utf8("second"));
            b.append(T0 - 1000, utf8("m2"), utf8("negative delta"));
            b.append(T0 + 1000, utf8("m3"), null);
            b.append(T0 + 1000, new byte[0], new byte[0], richHeaders());
            b.append(T0 + 3, utf8("m5"), utf8("last"));
        }));

        // Many records: multi-byte varints for offsetDelta / timestampDelta / lengths.
        add(c + "_many_records", build(new Spec().codec(c).base(5000), b -> {
            Random r = new Random(4711);
            for (int i = 0; i < 300; i++) {
                byte[] v = new byte[r.nextInt(200)];
                r.nextBytes(v);
                long ts = T0 + (long) i * 997 - (i % 7 == 3 ? 5_000_000L : 0);
                b.append(ts, utf8("key-" + i), v);
            }
        }));

        // Delete horizon (set by the log cleaner when it keeps tombstones/markers).
        add(c + "_delete_horizon", build(new Spec().codec(c).base(20).deleteHorizon(DELETE_HORIZON), b -> {
            b.append(T0, utf8("dk0"), null);
            b.append(T0 + 7, utf8("dk1"), utf8("kept"));
        }));

        // Two batches back to back in one buffer.
        add(c + "_two_batches", concat(
                build(new Spec().codec(c).base(0), b -> {
                    b.append(T0, utf8("x0"), utf8("batch one, record zero"));
                    b.append(T0 + 1, utf8("x1"), utf8("batch one, record one"));
                }),
                build(new Spec().codec(c).base(2).ple(1), b -> {
                    b.append(T0 + 2, utf8("x2"), utf8("batch two, record two"));
                    b.append(T0 + 3, utf8("x3"), utf8("batch two, record three"));
                })));
    }

    void extraV2() {
        // The documented fact-sheet vector.
        byte[] fs = build(new Spec(), b -> b.append(T0, utf8("k"), utf8("v")));
        add("fact_sheet_1_1", fs);
        DefaultRecordBatch batch = (DefaultRecordBatch) MemoryRecords.readableRecords(ByteBuffer.wrap(fs)).batches().iterator().next();
        boolean agree = fs.length == 70 && batch.checksum() == 0xE99B8DD8L;
        String msg = String.format("fact_sheet_1_1: size=%d crc=0x%08X (fact sheet: 70, 0xE99B8DD8) -> %s",
                fs.length, batch.checksum(), agree ? "Kafka AGREES" : "Kafka DISAGREES");
        System.out.println(msg);
        notes.add(msg);

        // Uncompressed end-transaction markers through the MemoryRecords helper.
        add("none_control_commit_helper", bytesOf(MemoryRecords.withEndTransactionMarker(
                77L, T0 + 77, 7, 4242L, (short) 5, new EndTransactionMarker(ControlRecordType.COMMIT, 3))));
        add("none_control_abort_helper", bytesOf(MemoryRecords.withEndTransactionMarker(
                78L, T0 + 78, -1, 4242L, (short) 5, new EndTransactionMarker(ControlRecordType.ABORT, 0))));

        // Non-default compression levels (decoders must not care); a 24 KiB value keeps them small.
        final byte[] medium = largeValue(24 * 1024, 0x5E8L);
        add("gzip_level1_mediumval", build(new Spec().comp(Compression.gzip().level(1).build()),
                b -> b.append(T0, utf8("lvl"), medium)));
        add("gzip_level9_mediumval", build(new Spec().comp(Compression.gzip().level(9).build()),
                b -> b.append(T0, utf8("lvl"), medium)));
        add("lz4_level17_mediumval", build(new Spec().comp(Compression.lz4().level(17).build()),
                b -> b.append(T0, utf8("lvl"), medium)));
        add("zstd_level19_mediumval", build(new Spec().comp(Compression.zstd().level(19).build()),
                b -> b.append(T0, utf8("lvl"), medium)));
        add("zstd_levelneg5_mediumval", build(new Spec().comp(Compression.zstd().level(-5).build()),
                b -> b.append(T0, utf8("lvl"), medium)));
        // Two large values: ~200 KiB of input, several LZ4 64 KiB blocks / snappy 32 KiB chunks.
        for (String c : new String[] {"snappy", "lz4"}) {
            add(c + "_two_largevals", build(new Spec().codec(c), b -> {
                b.append(T0, utf8("big0"), large);
                b.append(T0 + 1, utf8("big1"), largeValue(LARGE_VALUE_SIZE, 0x5E7L));
            }));
        }
    }

    void legacy() {
        String[] legacyCodecs = {"none", "gzip", "snappy", "lz4"};
        for (byte magic : new byte[] {RecordBatch.MAGIC_VALUE_V0, RecordBatch.MAGIC_VALUE_V1}) {
            for (String c : legacyCodecs) {
                String name = "v" + magic + "_" + c;
                try {
                    add(name, build(new Spec().magic(magic).codec(c).ple(RecordBatch.NO_PARTITION_LEADER_EPOCH), b -> {
                        b.append(T0, utf8("k0"), utf8("legacy value 0"));
                        b.append(T0 + 1, null, utf8("legacy value 1, null key"));
                        b.append(T0 + 2, utf8("k2"), null);
                        b.append(T0 - 3, new byte[0], new byte[0]);
                    }));
                    if (magic == RecordBatch.MAGIC_VALUE_V1) {
                        add(name + "_base1000", build(new Spec().magic(magic).codec(c).base(1000)
                                .ple(RecordBatch.NO_PARTITION_LEADER_EPOCH), b -> {
                            b.append(T0, utf8("k0"), utf8("v0"));
                            b.append(T0 + 1, utf8("k1"), utf8("v1"));
                        }));
                        add(name + "_logappendtime", build(new Spec().magic(magic).codec(c).ts(TimestampType.LOG_APPEND_TIME)
                                .logAppend(LOG_APPEND_TIME).ple(RecordBatch.NO_PARTITION_LEADER_EPOCH), b -> {
                            b.append(T0, utf8("k0"), utf8("v0"));
                            b.append(T0 + 1, utf8("k1"), utf8("v1"));
                        }));
                    }
                } catch (RuntimeException e) {
                    String msg = "magic v" + magic + " " + c + ": builder refused: " + e;
                    notes.add(msg);
                }
            }
            // zstd is documented as v2-only; record what the builder says.
            try {
                build(new Spec().magic(magic).codec("zstd"), b -> b.append(T0, utf8("k"), utf8("v")));
                notes.add("magic v" + magic + " zstd: builder ACCEPTED (unexpected)");
            } catch (RuntimeException e) {
                notes.add("magic v" + magic + " zstd: builder refused: " + e.getMessage());
            }
        }
    }

    /** Contiguous offsets from 0, mixed codecs, a transaction and its commit marker. */
    byte[] segment() {
        int ple = 0;
        return concat(
                build(new Spec().base(0).ple(ple), b -> {
                    b.append(T0, utf8("s0"), utf8("uncompressed 0"));
                    b.append(T0 + 1, null, utf8("uncompressed 1, null key"));
                    b.append(T0 + 2, utf8("s2"), null, richHeaders());
                }),
                build(new Spec().codec("gzip").base(3).ple(ple), b -> {
                    b.append(T0 + 3, utf8("s3"), utf8("gzip 3"));
                    b.append(T0 + 4, utf8("s4"), utf8("gzip 4"));
                }),
                build(new Spec().codec("snappy").base(5).ple(ple), b -> {
                    b.append(T0 + 5, utf8("s5"), utf8("snappy 5"));
                    b.append(T0 + 4, utf8("s6"), utf8("snappy 6, older timestamp"));
                    b.append(T0 + 7, utf8("s7"), utf8("snappy 7"));
                }),
                build(new Spec().codec("lz4").base(8).ple(ple).producer(31, 0, 0), b -> {
                    b.append(T0 + 8, utf8("s8"), utf8("lz4 8 idempotent"));
                    b.append(T0 + 9, utf8("s9"), utf8("lz4 9 idempotent"));
                }),
                build(new Spec().codec("zstd").base(10).ple(ple), b -> {
                    b.append(T0 + 10, utf8("s10"), utf8("zstd 10"));
                    b.append(T0 + 11, utf8("s11"), new byte[0]);
                    b.append(T0 + 12, new byte[0], utf8("zstd 12, empty key"));
                }),
                build(new Spec().base(13).ple(ple).producer(32, 2, 0).txn(), b -> {
                    b.append(T0 + 13, utf8("s13"), utf8("txn 13"));
                    b.append(T0 + 14, utf8("s14"), utf8("txn 14"));
                }),
                build(new Spec().base(15).ple(ple).producer(32, 2, RecordBatch.NO_SEQUENCE).txn().control(),
                        b -> b.appendEndTxnMarker(T0 + 15, new EndTransactionMarker(ControlRecordType.COMMIT, 4))),
                build(new Spec().base(16).ple(ple).ts(TimestampType.LOG_APPEND_TIME).logAppend(T0 + 16), b -> {
                    b.append(T0 + 2, utf8("s16"), utf8("log append time 16"));
                }));
    }

    static byte[] bytesOf(MemoryRecords records) {
        ByteBuffer buf = records.buffer().duplicate();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return bytes;
    }

    // ---------------------------------------------------------------------------------------------
    // Manifest: everything read back with Kafka's own accessors.

    static String b64(ByteBuffer bb) {
        if (bb == null) return null;
        ByteBuffer d = bb.duplicate();
        byte[] a = new byte[d.remaining()];
        d.get(a);
        return Base64.getEncoder().encodeToString(a);
    }

    static ObjectNode describeCase(Case c) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("name", c.name);
        o.put("file", c.file);
        ArrayNode batches = o.putArray("batches");
        MemoryRecords mr = MemoryRecords.readableRecords(ByteBuffer.wrap(c.bytes));
        int consumed = 0;
        for (RecordBatch batch : mr.batches()) {
            batch.ensureValid();
            consumed += batch.sizeInBytes();
            ObjectNode b = batches.addObject();
            boolean v2 = batch.magic() >= RecordBatch.MAGIC_VALUE_V2;
            b.put("magic", batch.magic());
            b.put("baseOffset", batch.baseOffset());
            b.put("lastOffset", batch.lastOffset());
            if (v2) b.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
            b.put("compression", batch.compressionType().name);
            b.put("timestampType", batch.timestampType().name);
            b.put("maxTimestamp", batch.maxTimestamp());
            if (v2) {
                b.put("baseTimestamp", ((DefaultRecordBatch) batch).baseTimestamp());
                b.put("producerId", batch.producerId());
                b.put("producerEpoch", batch.producerEpoch());
                b.put("baseSequence", batch.baseSequence());
                b.put("lastSequence", batch.lastSequence());
                b.put("isTransactional", batch.isTransactional());
                b.put("isControl", batch.isControlBatch());
                if (batch.deleteHorizonMs().isPresent()) b.put("deleteHorizonMs", batch.deleteHorizonMs().getAsLong());
                else b.putNull("deleteHorizonMs");
            }
            b.put("crc", batch.checksum());
            b.put("sizeInBytes", batch.sizeInBytes());
            ArrayNode recs = f.arrayNode();
            int n = 0;
            for (Record r : batch) {
                r.ensureValid();
                n++;
                ObjectNode ro = recs.addObject();
                ro.put("offset", r.offset());
                ro.put("timestamp", r.timestamp());
                ro.put("sequence", r.sequence());
                ro.put("key", b64(r.key()));
                ro.put("value", b64(r.value()));
                ArrayNode hs = ro.putArray("headers");
                for (Header h : r.headers()) {
                    ObjectNode ho = hs.addObject();
                    ho.put("key", h.key());
                    ho.put("value", h.value() == null ? null : Base64.getEncoder().encodeToString(h.value()));
                }
            }
            if (batch.countOrNull() != null && batch.countOrNull() != n) {
                throw new IllegalStateException(c.name + ": countOrNull " + batch.countOrNull() + " != iterated " + n);
            }
            b.put("recordCount", n);
            b.set("records", recs);
        }
        if (consumed != c.bytes.length) {
            throw new IllegalStateException(c.name + ": batches cover " + consumed + " of " + c.bytes.length + " bytes");
        }
        return o;
    }

    // ---------------------------------------------------------------------------------------------

    static void deleteOldBins(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.bin")) {
            for (Path p : ds) Files.delete(p);
        }
    }

    static int dumpSegment(Path outDir, String relLog, Path dumpFile) throws IOException, InterruptedException {
        // A child JVM with the same classpath: DumpLogSegments may call exit, and its stdout must
        // go to dump.txt alone. It runs in <outdir> with a relative path so the dump is location-free.
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        String log4j = System.getProperty("log4j2.configurationFile");
        if (log4j != null) cmd.add("-Dlog4j2.configurationFile=" + log4j);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("org.apache.kafka.tools.DumpLogSegments");
        cmd.add("--files");
        cmd.add(relLog);
        cmd.add("--deep-iteration");
        cmd.add("--print-data-log");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.directory(outDir.toFile());
        pb.redirectOutput(dumpFile.toFile());
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start().waitFor();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GoldenBatches <outdir>");
            System.exit(2);
        }
        Path out = Paths.get(args[0]).toAbsolutePath().normalize();
        Path batchesDir = out.resolve("batches");
        Path segDir = out.resolve("segment");
        Files.createDirectories(batchesDir);
        Files.createDirectories(segDir);
        deleteOldBins(batchesDir);

        GoldenBatches g = new GoldenBatches();
        g.extraV2();
        g.shapeMatrix();
        for (String c : CODECS) g.perCodec(c);
        g.legacy();

        long total = 0;
        for (Case c : g.cases) {
            Files.write(out.resolve(c.file), c.bytes);
            total += c.bytes.length;
        }
        String segRel = "segment/00000000000000000000.log";
        Case seg = new Case("segment_mixed", segRel, g.segment());
        Files.write(out.resolve(segRel), seg.bytes);
        total += seg.bytes.length;

        ArrayNode manifest = JsonNodeFactory.instance.arrayNode();
        for (Case c : g.cases) manifest.add(describeCase(c));
        manifest.add(describeCase(seg));
        ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        byte[] json = om.writeValueAsBytes(manifest);
        Files.write(out.resolve("manifest.json"), concat(json, new byte[] {'\n'}));

        int rc = dumpSegment(out, segRel, segDir.resolve("dump.txt"));
        if (rc != 0) {
            System.err.println("DumpLogSegments exited with " + rc);
            System.exit(1);
        }

        for (String n : g.notes) System.err.println("note: " + n);
        System.out.printf("wrote %d cases (%d bytes of batch data) + segment_mixed + manifest.json + segment/dump.txt to %s%n",
                g.cases.size(), total, out);
    }
}
