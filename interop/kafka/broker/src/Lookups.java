import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.OffsetPosition;
import org.apache.kafka.storage.internals.log.OffsetResultHolder;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.TimestampOffset;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Lookups <partition-dir> <lookups.json> <records.json> [--values] [--sent <sent.jsonl>]
 *
 * Opens a copy of a partition directory written by a real broker (clean shutdown) with Kafka's
 * own UnifiedLog (the copy lives in a temp dir, so the fixture files are never modified), then
 * writes:
 *  - lookups.json: per segment the offset/time index entries, and for fixed target offsets the
 *    floor segment, OffsetIndex.lookup, LogSegment.translateOffset and the segment that serves a
 *    read (LocalLog.read moves to the next segment when the floor segment has no batch with
 *    lastOffset >= target); for fixed target timestamps UnifiedLog.fetchOffsetByTimestamp
 *    (plus EARLIEST/LATEST/MAX_TIMESTAMP/EARLIEST_LOCAL) and the time index lookup used.
 *  - records.json: every batch and record as Kafka's FileRecords reads them (values as size +
 *    CRC-32C, and the value text itself with --values).
 * With --sent, every record is checked against what Produce sent; any mismatch exits 1.
 */
public class Lookups {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: Lookups <partition-dir> <lookups.json> <records.json> [--values] [--sent <sent.jsonl>]");
            System.exit(2);
        }
        Path src = Path.of(args[0]).toAbsolutePath();
        Path lookupsOut = Path.of(args[1]);
        Path recordsOut = Path.of(args[2]);
        boolean values = false;
        Path sent = null;
        for (int a = 3; a < args.length; a++) {
            if (args[a].equals("--values")) values = true;
            else if (args[a].equals("--sent")) sent = Path.of(args[++a]);
            else throw new IllegalArgumentException(args[a]);
        }
        String dirName = src.getFileName().toString();
        String topic = dirName.substring(0, dirName.lastIndexOf('-'));

        Path tmp = Files.createTempDirectory("seglog-lookups-");
        Path copy = tmp.resolve(dirName);
        copyDir(src, copy);

        KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        BrokerTopicStats stats = new BrokerTopicStats();
        Map<String, Object> props = new HashMap<>();
        props.put("segment.bytes", "1048576");
        props.put("retention.ms", "-1");
        props.put("retention.bytes", "-1");
        UnifiedLog log = UnifiedLog.create(copy.toFile(), new LogConfig(props), 0L, 0L, scheduler, stats, Time.SYSTEM,
                900000, new ProducerStateManagerConfig(86400000, false), 600000, new LogDirFailureChannel(1),
                true, Optional.empty());
        int rc = 0;
        try {
            List<String> recLines = new ArrayList<>();
            List<String> batchLines = new ArrayList<>();
            List<Long> timestamps = new ArrayList<>();
            readAll(log, values, recLines, batchLines, timestamps);
            writeRecords(recordsOut, topic, batchLines, recLines);
            if (sent != null) rc = checkSent(sent, recLines, values);
            writeLookups(lookupsOut, topic, log, timestamps);
        } finally {
            log.close();
            scheduler.shutdown();
            stats.close();
            deleteDir(tmp);
        }
        System.exit(rc);
    }

    // ---- records -------------------------------------------------------------------------

    static void readAll(UnifiedLog log, boolean values, List<String> recLines, List<String> batchLines, List<Long> timestamps) {
        long expected = log.logStartOffset();
        for (LogSegment seg : log.logSegments()) {
            for (FileChannelRecordBatch b : seg.log().batches()) {
                b.ensureValid();
                if (b.baseOffset() != expected) throw new IllegalStateException("gap before batch at " + b.baseOffset());
                expected = b.lastOffset() + 1;
                batchLines.add("{\"segment\":" + seg.baseOffset() + ",\"position\":" + b.position()
                        + ",\"base_offset\":" + b.baseOffset() + ",\"last_offset\":" + b.lastOffset()
                        + ",\"count\":" + b.countOrNull() + ",\"size_bytes\":" + b.sizeInBytes()
                        + ",\"magic\":" + b.magic() + ",\"compression\":\"" + b.compressionType().name + "\""
                        + ",\"timestamp_type\":\"" + b.timestampType() + "\",\"max_timestamp\":" + b.maxTimestamp()
                        + ",\"crc\":" + b.checksum() + ",\"partition_leader_epoch\":" + b.partitionLeaderEpoch()
                        + ",\"producer_id\":" + b.producerId() + ",\"producer_epoch\":" + b.producerEpoch()
                        + ",\"base_sequence\":" + b.baseSequence() + ",\"last_sequence\":" + b.lastSequence()
                        + ",\"transactional\":" + b.isTransactional() + ",\"control\":" + b.isControlBatch() + "}");
                for (Record r : b) {
                    r.ensureValid();
                    timestamps.add(r.timestamp());
                    StringBuilder sb = new StringBuilder();
                    sb.append(sentPrefix(r));
                    sb.append(",\"offset\":").append(r.offset());
                    if (values) sb.append(",\"value\":").append(jstr(bytes(r.value())));
                    recLines.add(sb.append('}').toString());
                }
            }
        }
        if (expected != log.logEndOffset()) throw new IllegalStateException("records end at " + expected + ", LEO " + log.logEndOffset());
    }

    /** Same field order and formatting as Produce's sent.jsonl lines (without offset and closing brace). */
    static String sentPrefix(Record r) {
        byte[] v = bytes(r.value());
        StringBuilder sb = new StringBuilder();
        sb.append("{\"i\":").append(r.offset()).append(",\"timestamp\":").append(r.timestamp())
          .append(",\"key\":").append(jstr(bytes(r.key())))
          .append(",\"vlen\":").append(v == null ? -1 : v.length)
          .append(",\"vcrc32c\":").append(v == null ? "null" : Long.toString(crc32c(v)))
          .append(",\"headers\":[");
        Header[] hs = r.headers();
        for (int h = 0; h < hs.length; h++) {
            if (h > 0) sb.append(',');
            sb.append("{\"key\":").append(jstr(hs[h].key().getBytes(StandardCharsets.UTF_8)))
              .append(",\"value\":").append(jstr(hs[h].value())).append('}');
        }
        return sb.append("]").toString();
    }

    static int checkSent(Path sent, List<String> recLines, boolean values) throws IOException {
        List<String> want = Files.readAllLines(sent);
        int bad = 0;
        if (want.size() != recLines.size()) {
            System.err.println("Lookups: " + sent + ": sent " + want.size() + " records, log holds " + recLines.size());
            bad++;
        }
        for (int i = 0; i < Math.min(want.size(), recLines.size()); i++) {
            String got = recLines.get(i);
            if (values) got = got.substring(0, got.lastIndexOf(",\"value\":")) + "}";
            if (!want.get(i).equals(got)) {
                if (bad++ < 5) System.err.println("Lookups: mismatch at " + i + "\n  sent: " + want.get(i) + "\n  read: " + got);
            }
        }
        System.err.println("Lookups: " + sent.getFileName() + ": " + (bad == 0 ? "all " + want.size() + " records match" : bad + " mismatches"));
        return bad == 0 ? 0 : 1;
    }

    static void writeRecords(Path out, String topic, List<String> batches, List<String> records) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"topic\":\"").append(topic).append("\",\"partition\":0,\"kafka_version\":\"4.4.0\",")
          .append("\"source\":\"FileRecords.batches() of each segment, opened by UnifiedLog\",\n\"batches\":[\n");
        join(sb, batches);
        sb.append("],\n\"records\":[\n");
        join(sb, records);
        sb.append("]}\n");
        Files.writeString(out, sb.toString());
    }

    // ---- lookups -------------------------------------------------------------------------

    static void writeLookups(Path out, String topic, UnifiedLog log, List<Long> timestamps) throws IOException {
        List<LogSegment> segs = log.logSegments();
        long lso = log.logStartOffset(), leo = log.logEndOffset();
        StringBuilder sb = new StringBuilder();
        sb.append("{\"topic\":\"").append(topic).append("\",\"partition\":0,\"kafka_version\":\"4.4.0\",\n")
          .append("\"log_start_offset\":").append(lso).append(",\"log_end_offset\":").append(leo).append(",\n");

        sb.append("\"segments\":[\n");
        List<String> segLines = new ArrayList<>();
        for (LogSegment s : segs) {
            StringBuilder l = new StringBuilder();
            TimestampOffset maxTo = s.readMaxTimestampAndOffsetSoFar();
            l.append("{\"base_offset\":").append(s.baseOffset()).append(",\"size_bytes\":").append(s.size())
             .append(",\"next_offset\":").append(s.readNextOffset())
             .append(",\"largest_timestamp\":").append(s.largestTimestamp())
             .append(",\"max_timestamp_so_far\":").append(maxTo.timestamp())
             .append(",\"offset_of_max_timestamp_so_far\":").append(maxTo.offset())
             .append(",\"offset_index_entries\":").append(s.offsetIndex().entries())
             .append(",\"time_index_entries\":").append(s.timeIndex().entries())
             .append(",\n \"offset_index\":[");
            for (int e = 0; e < s.offsetIndex().entries(); e++) {
                OffsetPosition p = s.offsetIndex().entry(e);
                l.append(e > 0 ? "," : "").append('[').append(p.offset()).append(',').append(p.position()).append(']');
            }
            l.append("],\n \"time_index\":[");
            for (int e = 0; e < s.timeIndex().entries(); e++) {
                TimestampOffset t = s.timeIndex().entry(e);
                l.append(e > 0 ? "," : "").append('[').append(t.timestamp()).append(',').append(t.offset()).append(']');
            }
            l.append("]}");
            segLines.add(l.toString());
        }
        join(sb, segLines);
        sb.append("],\n");

        // Target offsets.
        TreeSet<Long> offs = new TreeSet<>();
        long last = leo - 1;
        for (long o : new long[] {0, 1, 2, 9, 10, 11, 19, 20, 35, 49, 50, 51, 99, 100, 149, 150, 1000,
                leo / 4, leo / 3, leo / 2, (3 * leo) / 4, last - 40, last - 39, last - 31, last - 30, last - 10,
                last - 1, last, leo, leo + 10})
            if (o >= 0) offs.add(o);
        for (LogSegment s : segs) {
            offs.add(s.baseOffset());
            offs.add(s.baseOffset() + 1);
            if (s.baseOffset() > 0) offs.add(s.baseOffset() - 1);
        }
        sb.append("\"offset_lookups\":[\n");
        List<String> offLines = new ArrayList<>();
        for (long target : offs) offLines.add(offsetLookup(log, target));
        join(sb, offLines);
        sb.append("],\n");

        // Target timestamps.
        TreeSet<Long> tss = new TreeSet<>();
        long first = timestamps.get(0), lastTs = timestamps.get(timestamps.size() - 1);
        tss.add(0L);
        tss.add(first - 1000);
        tss.add(first - 1);
        tss.add(lastTs);
        tss.add(lastTs - 5);
        tss.add(lastTs + 1);
        tss.add(lastTs + 1000);
        for (long o : offs) {
            if (o < timestamps.size()) {
                long t = timestamps.get((int) o);
                tss.add(t);
                tss.add(t + 1);
                tss.add(t - 5);
            }
        }
        List<Long> tsList = new ArrayList<>();
        tsList.add(ListOffsetsRequest.EARLIEST_TIMESTAMP);
        tsList.add(ListOffsetsRequest.LATEST_TIMESTAMP);
        tsList.add(ListOffsetsRequest.MAX_TIMESTAMP);
        tsList.add(ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP);
        tsList.addAll(tss);
        sb.append("\"timestamp_lookups\":[\n");
        List<String> tsLines = new ArrayList<>();
        for (long target : tsList) tsLines.add(timestampLookup(log, target));
        join(sb, tsLines);
        sb.append("]}\n");
        Files.writeString(out, sb.toString());
    }

    static String offsetLookup(UnifiedLog log, long target) throws IOException {
        StringBuilder sb = new StringBuilder("{\"target\":").append(target);
        List<LogSegment> floor = log.logSegments(target, target + 1); // LogSegments.values: from floorKey(target)
        if (floor.isEmpty()) return sb.append(",\"floor_segment\":null,\"index_lookup\":null,\"translate\":null,\"read\":null}").toString();
        LogSegment seg = floor.get(0);
        OffsetPosition ip = seg.offsetIndex().lookup(target);
        sb.append(",\"floor_segment\":").append(seg.baseOffset())
          .append(",\"index_lookup\":{\"offset\":").append(ip.offset()).append(",\"position\":").append(ip.position()).append('}');
        FileRecords.LogOffsetPosition tp = seg.translateOffset(target);
        sb.append(",\"translate\":").append(pos(seg, tp));
        // LocalLog.read: on a null translate, try the next segment(s) (floorSegment -> higherSegment).
        String read = "null";
        for (LogSegment s : log.logSegments(seg.baseOffset(), Long.MAX_VALUE)) {
            FileRecords.LogOffsetPosition p = s.translateOffset(target);
            if (p != null) {
                read = pos(s, p);
                break;
            }
        }
        return sb.append(",\"read\":").append(read).append('}').toString();
    }

    static String pos(LogSegment seg, FileRecords.LogOffsetPosition p) throws IOException {
        if (p == null) return "null";
        FileChannelRecordBatch b = seg.log().batchesFrom(p.position).iterator().next();
        return "{\"segment\":" + seg.baseOffset() + ",\"position\":" + p.position + ",\"size\":" + p.size
                + ",\"offset\":" + p.offset + ",\"batch_base_offset\":" + b.baseOffset()
                + ",\"batch_last_offset\":" + b.lastOffset() + "}";
    }

    static String timestampLookup(UnifiedLog log, long target) throws IOException {
        StringBuilder sb = new StringBuilder("{\"target\":").append(target);
        if (target == ListOffsetsRequest.EARLIEST_TIMESTAMP) sb.append(",\"name\":\"EARLIEST_TIMESTAMP\"");
        else if (target == ListOffsetsRequest.LATEST_TIMESTAMP) sb.append(",\"name\":\"LATEST_TIMESTAMP\"");
        else if (target == ListOffsetsRequest.MAX_TIMESTAMP) sb.append(",\"name\":\"MAX_TIMESTAMP\"");
        else if (target == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) sb.append(",\"name\":\"EARLIEST_LOCAL_TIMESTAMP\"");
        OffsetResultHolder h = log.fetchOffsetByTimestamp(target, Optional.empty());
        Optional<FileRecords.TimestampAndOffset> r = h.timestampAndOffsetOpt();
        sb.append(",\"result\":");
        if (r.isPresent()) {
            sb.append("{\"timestamp\":").append(r.get().timestamp).append(",\"offset\":").append(r.get().offset)
              .append(",\"leader_epoch\":").append(r.get().leaderEpoch.map(String::valueOf).orElse("null")).append('}');
        } else sb.append("null");
        if (target >= 0) {
            // UnifiedLog picks the first segment whose largestTimestamp >= target, then
            // LogSegment.findOffsetByTimestamp starts from timeIndex.lookup(target).
            LogSegment chosen = null;
            for (LogSegment s : log.logSegments()) {
                if (s.largestTimestamp() >= target) {
                    chosen = s;
                    break;
                }
            }
            if (chosen == null) sb.append(",\"segment\":null,\"time_index_lookup\":null");
            else {
                TimestampOffset t = chosen.timeIndex().lookup(target);
                sb.append(",\"segment\":").append(chosen.baseOffset())
                  .append(",\"time_index_lookup\":{\"timestamp\":").append(t.timestamp()).append(",\"offset\":").append(t.offset()).append('}');
            }
        }
        return sb.append('}').toString();
    }

    // ---- helpers -------------------------------------------------------------------------

    static void join(StringBuilder sb, List<String> lines) {
        for (int i = 0; i < lines.size(); i++) sb.append(lines.get(i)).append(i + 1 < lines.size() ? ",\n" : "\n");
    }

    static byte[] bytes(ByteBuffer b) {
        if (b == null) return null;
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    static long crc32c(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
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

    static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : (Iterable<Path>) s::iterator)
                Files.copy(p, to.resolve(p.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        }
    }

    static void deleteDir(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
