// Kafka's own generated message classes judge seglog's encodings: each line of stdin is
// "<schema name> <version> <seed> <hex>" (interop/protocol_samples_dump.cc). Each message is
// read with Kafka's class for that schema (which must consume every byte) and written again
// with MessageUtil; the bytes must be identical. Prints "N passed, M failed, K coordinator
// records passed" (K of the N).
//
// The class of a schema: ProduceRequestData (requests, responses, headers) or
// ConsumerProtocolAssignment (data) in kafka-clients' org.apache.kafka.common.message, and the
// coordinators' records (OffsetCommitKey, TransactionLogValue) in their jars' generated
// packages, and the remote log metadata records (RemoteLogSegmentMetadataRecord) in
// kafka-storage's. Exactly one of those classes must exist, so a name never picks the wrong schema.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

public class ProtocolSamples {
    static final String CLIENTS_PACKAGE = "org.apache.kafka.common.message.";
    static final String[] RECORD_PACKAGES = {
        "org.apache.kafka.coordinator.group.generated.",
        "org.apache.kafka.coordinator.share.generated.",
        "org.apache.kafka.coordinator.transaction.generated.",
    };
    // The remote log metadata records of __remote_log_metadata (kafka-storage).
    static final String METADATA_PACKAGE = "org.apache.kafka.server.log.remote.metadata.storage.generated.";
    // KRaft's metadata records of __cluster_metadata (kafka-metadata).
    static final String KRAFT_PACKAGE = "org.apache.kafka.common.metadata.";

    static final Map<String, Class<?>> CLASSES = new HashMap<>();

    static Class<?> messageClass(String schema) throws ClassNotFoundException {
        Class<?> known = CLASSES.get(schema);
        if (known != null) return known;
        List<String> candidates = new ArrayList<>();
        candidates.add(CLIENTS_PACKAGE + schema + "Data");
        candidates.add(CLIENTS_PACKAGE + schema);
        for (String pkg : RECORD_PACKAGES) candidates.add(pkg + schema);
        candidates.add(METADATA_PACKAGE + schema);
        candidates.add(KRAFT_PACKAGE + schema);
        List<Class<?>> found = new ArrayList<>();
        for (String name : candidates) {
            try {
                found.add(Class.forName(name));
            } catch (ClassNotFoundException e) {
                // not this one
            }
        }
        if (found.size() != 1) {
            throw new ClassNotFoundException(schema + ": " + found.size() + " classes among " + candidates);
        }
        CLASSES.put(schema, found.get(0));
        return found.get(0);
    }

    static boolean isRecordClass(Class<?> c) {
        for (String pkg : RECORD_PACKAGES) {
            if (c.getName().startsWith(pkg)) return true;
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int passed = 0, failed = 0, records = 0;
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            if (parts.length < 3) continue;
            String schema = parts[0];
            short version = Short.parseShort(parts[1]);
            byte[] bytes = parts.length > 3 ? HexFormat.of().parseHex(parts[3]) : new byte[0];
            String what = schema + " v" + version + " seed " + parts[2];
            try {
                Class<?> cls = messageClass(schema);
                Constructor<?> ctor = cls.getConstructor(Readable.class, short.class);
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                Message message = (Message) ctor.newInstance(new ByteBufferAccessor(buf), version);
                if (buf.remaining() != 0) {
                    throw new IllegalStateException(buf.remaining() + " bytes left over");
                }
                ByteBuffer again = MessageUtil.toByteBufferAccessor(message, version).buffer();
                byte[] out = new byte[again.remaining()];
                again.get(out);
                if (!Arrays.equals(out, bytes)) {
                    throw new IllegalStateException("re-encoded differs: " + HexFormat.of().formatHex(out));
                }
                passed++;
                if (isRecordClass(cls)) records++;
            } catch (Throwable t) {
                Throwable cause = t.getCause() != null ? t.getCause() : t;
                if (failed < 50) System.out.println("FAIL " + what + ": " + cause);
                failed++;
            }
        }
        // No ';' in the line: ctest's PASS_REGULAR_EXPRESSION would split the pattern there.
        System.out.println(passed + " passed, " + failed + " failed, " + records + " coordinator records passed");
        System.exit(failed == 0 && passed > 0 ? 0 : 1);
    }
}
