import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;

/**
 * VerifyBatches &lt;manifest.json&gt;
 *
 * For every case of the manifest, reads its file (relative to the manifest's directory) with
 * Kafka's MemoryRecords.readableRecords and checks, with Kafka's own classes, that every batch is
 * valid (CRC, sizes), that the batch count and each batch/record field given in the manifest
 * match Kafka's accessors (records are decompressed with Kafka's codecs), and that the batches
 * cover the whole file. Fields absent from the manifest are not checked.
 *
 * Prints "OK &lt;name&gt;" or "FAIL &lt;name&gt;: ..." per case, then "N passed, M failed";
 * exits 1 if any case failed, 2 on usage errors or an unreadable manifest.
 */
public final class VerifyBatches {

    static final int MAX_REPORTED = 8;

    /** Collects differences for one case. */
    static final class Errors {
        final List<String> list = new ArrayList<>();

        void add(String msg) { list.add(msg); }

        boolean isEmpty() { return list.isEmpty(); }

        String summary() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < list.size() && i < MAX_REPORTED; i++) {
                if (i > 0) sb.append("; ");
                sb.append(list.get(i));
            }
            if (list.size() > MAX_REPORTED) sb.append("; (+").append(list.size() - MAX_REPORTED).append(" more)");
            return sb.toString();
        }
    }

    static String describe(JsonNode n) {
        String s = n.toString();
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }

    static String shorten(String s) {
        return s != null && s.length() > 80 ? s.substring(0, 77) + "..." : String.valueOf(s);
    }

    static void checkLong(Errors errs, String where, JsonNode exp, String field, long actual) {
        JsonNode v = exp.get(field);
        if (v == null) return;
        if (!v.isIntegralNumber()) {
            errs.add(where + "." + field + ": manifest value " + describe(v) + " is not an integer (Kafka: " + actual + ")");
        } else if (!v.canConvertToLong() || v.longValue() != actual) {
            errs.add(where + "." + field + ": expected " + v.asText() + " found " + actual);
        }
    }

    static void checkBool(Errors errs, String where, JsonNode exp, String field, boolean actual) {
        JsonNode v = exp.get(field);
        if (v == null) return;
        if (!v.isBoolean() || v.booleanValue() != actual) {
            errs.add(where + "." + field + ": expected " + describe(v) + " found " + actual);
        }
    }

    static void checkString(Errors errs, String where, JsonNode exp, String field, String actual) {
        JsonNode v = exp.get(field);
        if (v == null) return;
        if (!v.isTextual() || !v.textValue().equals(actual)) {
            errs.add(where + "." + field + ": expected " + describe(v) + " found \"" + actual + "\"");
        }
    }

    static byte[] bytes(ByteBuffer bb) {
        if (bb == null) return null;
        ByteBuffer d = bb.duplicate();
        byte[] a = new byte[d.remaining()];
        d.get(a);
        return a;
    }

    static String b64(byte[] a) {
        return a == null ? "null" : "\"" + Base64.getEncoder().encodeToString(a) + "\"";
    }

    /** Manifest bytes: null, or base64 text. */
    static void checkBytes(Errors errs, String where, JsonNode exp, String field, byte[] actual) {
        JsonNode v = exp.get(field);
        if (v == null) return;
        if (v.isNull()) {
            if (actual != null) errs.add(where + "." + field + ": expected null found " + shorten(b64(actual)) + " (" + actual.length + " bytes)");
            return;
        }
        if (!v.isTextual()) {
            errs.add(where + "." + field + ": manifest value " + describe(v) + " is neither null nor base64");
            return;
        }
        byte[] want;
        try {
            want = Base64.getDecoder().decode(v.textValue());
        } catch (IllegalArgumentException e) {
            errs.add(where + "." + field + ": manifest value is not valid base64: " + e.getMessage());
            return;
        }
        if (actual == null) {
            errs.add(where + "." + field + ": expected " + want.length + " bytes found null");
        } else if (!Arrays.equals(want, actual)) {
            int i = 0;
            while (i < want.length && i < actual.length && want[i] == actual[i]) i++;
            errs.add(where + "." + field + ": expected " + want.length + " bytes " + shorten(b64(want))
                    + " found " + actual.length + " bytes " + shorten(b64(actual)) + " (first difference at byte " + i + ")");
        }
    }

    static void checkHeaders(Errors errs, String where, JsonNode exp, Header[] actual) {
        JsonNode hs = exp.get("headers");
        if (hs == null) return;
        if (!hs.isArray()) {
            errs.add(where + ".headers: manifest value is not an array");
            return;
        }
        if (hs.size() != actual.length) {
            errs.add(where + ".headers: expected " + hs.size() + " headers found " + actual.length);
            return;
        }
        for (int i = 0; i < actual.length; i++) {
            String hw = where + ".headers[" + i + "]";
            checkString(errs, hw, hs.get(i), "key", actual[i].key());
            checkBytes(errs, hw, hs.get(i), "value", actual[i].value());
        }
    }

    static void checkRecord(Errors errs, String where, JsonNode exp, Record r) {
        checkLong(errs, where, exp, "offset", r.offset());
        checkLong(errs, where, exp, "timestamp", r.timestamp());
        checkLong(errs, where, exp, "sequence", r.sequence());
        checkBytes(errs, where, exp, "key", bytes(r.key()));
        checkBytes(errs, where, exp, "value", bytes(r.value()));
        checkHeaders(errs, where, exp, r.headers());
    }

    static void checkBatch(Errors errs, String where, JsonNode exp, RecordBatch b) {
        if (!b.isValid()) errs.add(where + ": isValid() is false (stored crc " + b.checksum() + ")");
        try {
            b.ensureValid();
        } catch (RuntimeException e) {
            errs.add(where + ": ensureValid() threw " + e);
        }
        checkLong(errs, where, exp, "magic", b.magic());
        checkLong(errs, where, exp, "baseOffset", b.baseOffset());
        checkLong(errs, where, exp, "lastOffset", b.lastOffset());
        checkLong(errs, where, exp, "partitionLeaderEpoch", b.partitionLeaderEpoch());
        checkString(errs, where, exp, "compression", b.compressionType().name);
        checkString(errs, where, exp, "timestampType", b.timestampType().name);
        checkLong(errs, where, exp, "maxTimestamp", b.maxTimestamp());
        if (exp.has("baseTimestamp")) {
            if (b instanceof DefaultRecordBatch) {
                checkLong(errs, where, exp, "baseTimestamp", ((DefaultRecordBatch) b).baseTimestamp());
            } else {
                errs.add(where + ".baseTimestamp: given, but Kafka reads a magic " + b.magic() + " batch (no such field)");
            }
        }
        checkLong(errs, where, exp, "producerId", b.producerId());
        checkLong(errs, where, exp, "producerEpoch", b.producerEpoch());
        checkLong(errs, where, exp, "baseSequence", b.baseSequence());
        checkLong(errs, where, exp, "lastSequence", b.lastSequence());
        checkBool(errs, where, exp, "isTransactional", b.isTransactional());
        checkBool(errs, where, exp, "isControl", b.isControlBatch());
        JsonNode dh = exp.get("deleteHorizonMs");
        if (dh != null) {
            OptionalLong actual = b.deleteHorizonMs();
            String found = actual.isPresent() ? Long.toString(actual.getAsLong()) : "null";
            boolean ok = dh.isNull() ? !actual.isPresent()
                    : dh.isIntegralNumber() && actual.isPresent() && dh.asLong() == actual.getAsLong();
            if (!ok) errs.add(where + ".deleteHorizonMs: expected " + describe(dh) + " found " + found);
        }
        checkLong(errs, where, exp, "crc", b.checksum());
        checkLong(errs, where, exp, "sizeInBytes", b.sizeInBytes());

        // Records, decompressed by Kafka's own codecs.
        List<Record> records = new ArrayList<>();
        try {
            for (Record r : b) {
                try {
                    r.ensureValid();
                } catch (RuntimeException e) {
                    errs.add(where + ".records[" + records.size() + "]: ensureValid() threw " + e);
                }
                records.add(r);
            }
        } catch (RuntimeException e) {
            errs.add(where + ": reading records threw " + e + " after " + records.size() + " records");
            return;
        }
        Integer count = b.countOrNull();
        if (count != null && count != records.size()) {
            errs.add(where + ": header record count " + count + " but " + records.size() + " records decoded");
        }
        checkLong(errs, where, exp, "recordCount", records.size());
        if (b.isControlBatch()) {
            for (int i = 0; i < records.size(); i++) {
                Record r = records.get(i);
                try {
                    ControlRecordType t = ControlRecordType.parse(r.key());
                    if (t == ControlRecordType.COMMIT || t == ControlRecordType.ABORT) EndTransactionMarker.deserialize(r);
                } catch (RuntimeException e) {
                    errs.add(where + ".records[" + i + "]: Kafka cannot parse the control record: " + e);
                }
            }
        }
        JsonNode recs = exp.get("records");
        if (recs == null) return;
        if (!recs.isArray()) {
            errs.add(where + ".records: manifest value is not an array");
            return;
        }
        if (recs.size() != records.size()) {
            errs.add(where + ".records: expected " + recs.size() + " records found " + records.size());
        }
        for (int i = 0; i < Math.min(recs.size(), records.size()); i++) {
            checkRecord(errs, where + ".records[" + i + "]", recs.get(i), records.get(i));
        }
    }

    static void verifyCase(Errors errs, Path baseDir, JsonNode c) throws Exception {
        JsonNode fileNode = c.get("file");
        if (fileNode == null || !fileNode.isTextual()) {
            errs.add("manifest entry has no \"file\"");
            return;
        }
        Path file = baseDir.resolve(fileNode.textValue());
        if (!Files.isRegularFile(file)) {
            errs.add("file not found: " + file);
            return;
        }
        byte[] data = Files.readAllBytes(file);
        MemoryRecords mr = MemoryRecords.readableRecords(ByteBuffer.wrap(data));
        List<RecordBatch> batches = new ArrayList<>();
        long covered = 0;
        try {
            for (RecordBatch b : mr.batches()) {
                batches.add(b);
                covered += b.sizeInBytes();
            }
        } catch (RuntimeException e) {
            errs.add("iterating batches threw " + e + " after " + batches.size() + " batches (" + covered + " bytes)");
        }
        if (covered != data.length) {
            errs.add("batches cover " + covered + " of " + data.length + " bytes (trailing or unparseable data)");
        }
        if (fileNode.textValue().endsWith(".log")) {
            // A segment file: also read it the way the broker does, through FileRecords.
            try (FileRecords fr = FileRecords.open(file.toFile(), false)) {
                int n = 0;
                for (RecordBatch fb : fr.batches()) {
                    if (n < batches.size() && fb.sizeInBytes() != batches.get(n).sizeInBytes()) {
                        errs.add("FileRecords batch[" + n + "] size " + fb.sizeInBytes() + " != " + batches.get(n).sizeInBytes());
                    }
                    fb.ensureValid();
                    n++;
                }
                if (n != batches.size()) errs.add("FileRecords sees " + n + " batches, MemoryRecords " + batches.size());
            } catch (RuntimeException e) {
                errs.add("FileRecords iteration threw " + e);
            }
        }
        JsonNode exp = c.get("batches");
        if (exp == null) {
            // No expectations: still validate every batch and its records.
            for (int i = 0; i < batches.size(); i++) {
                checkBatch(errs, "batch[" + i + "]", JsonNodeFactory.instance.objectNode(), batches.get(i));
            }
            return;
        }
        if (!exp.isArray()) {
            errs.add("\"batches\" is not an array");
            return;
        }
        if (exp.size() != batches.size()) {
            errs.add("batch count: expected " + exp.size() + " found " + batches.size());
        }
        for (int i = 0; i < batches.size(); i++) {
            // Batches beyond the manifest's list are still validated, against no expectations.
            JsonNode e = i < exp.size() ? exp.get(i) : JsonNodeFactory.instance.objectNode();
            checkBatch(errs, "batch[" + i + "]", e, batches.get(i));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: VerifyBatches <manifest.json>");
            System.exit(2);
        }
        Path manifest = Paths.get(args[0]).toAbsolutePath().normalize();
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(manifest.toFile());
        } catch (Exception e) {
            System.err.println("cannot read manifest " + manifest + ": " + e);
            System.exit(2);
            return;
        }
        if (root == null || !root.isArray()) {
            System.err.println("manifest " + manifest + " is not a JSON array");
            System.exit(2);
            return;
        }
        Path baseDir = manifest.getParent();
        int passed = 0;
        int failed = 0;
        for (int i = 0; i < root.size(); i++) {
            JsonNode c = root.get(i);
            String name = c.hasNonNull("name") ? c.get("name").asText() : "#" + i;
            Errors errs = new Errors();
            try {
                verifyCase(errs, baseDir, c);
            } catch (Exception | AssertionError e) {
                errs.add("exception " + e);
            }
            if (errs.isEmpty()) {
                passed++;
                System.out.println("OK " + name);
            } else {
                failed++;
                System.out.println("FAIL " + name + ": " + errs.summary());
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.out.flush();
        System.exit(failed == 0 ? 0 : 1);
    }
}
