// Kafka 4.4.0's own RemoteLogMetadataSerde and RemoteLogMetadataTopicPartitioner judge seglog's
// __remote_log_metadata values (src/protocol/remote_log_metadata_serde.h).
//
//   RemoteLogMetadataGolden golden   prints "record <case> <hex>" (Kafka's serialize of each
//                                    case), "partition <topic id> <partition> <n> <metadata
//                                    partition>" and "state <enum> <name> <id>" lines: the
//                                    golden values of seglog's unit test
//   RemoteLogMetadataGolden check    reads such "record" and "partition" lines written by seglog
//                                    (interop/remote_log_metadata_dump.cc) on stdin: each value
//                                    must equal Kafka's serialize of the case byte for byte, and
//                                    Kafka's deserialize of it must equal the case; each
//                                    partition must be the one Kafka's partitioner picks. Prints
//                                    "N passed, M failed".
//   RemoteLogMetadataGolden expect CASE...   prints each case's toString, one a line (what
//                                    DumpLogSegments --remote-log-metadata-decoder shows)
//
// The cases (fixed ids, offsets, times) are the same as the C++ side's, by name.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogSegmentMetadataSnapshot;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;

public class RemoteLogMetadataGolden {
    static final Uuid TOPIC_1 = new Uuid(0x0123456789abcdefL, 0xfedcba9876543210L);
    static final Uuid TOPIC_2 = new Uuid(0xdeadbeefcafebabeL, 0x0000000000000001L);
    static final Uuid TOPIC_3 = new Uuid(0x6b1f3a5c9d2e4f70L, 0x1a2b3c4d5e6f7081L);
    static final Uuid SEGMENT_1 = new Uuid(0x1111222233334444L, 0x5555666677778888L);
    static final Uuid SEGMENT_2 = new Uuid(0x7fffffff00000001L, 0x8000000000000002L);
    static final TopicIdPartition ORDERS_3 = new TopicIdPartition(TOPIC_1, new TopicPartition("orders", 3));
    static final TopicIdPartition EVENTS_0 = new TopicIdPartition(TOPIC_2, new TopicPartition("events.v2_x-y", 0));

    static Map<Integer, Long> epochs(long... pairs) {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put((int) pairs[i], pairs[i + 1]);
        return m;
    }

    static Map<String, RemoteLogMetadata> cases() {
        RemoteLogSegmentId seg1 = new RemoteLogSegmentId(ORDERS_3, SEGMENT_1);
        RemoteLogSegmentId seg2 = new RemoteLogSegmentId(ORDERS_3, SEGMENT_2);
        Map<String, RemoteLogMetadata> c = new LinkedHashMap<>();
        c.put("segment_started", new RemoteLogSegmentMetadata(seg1, 100, 199, 1700000000123L, 1,
                1700000000456L, 4096, epochs(0, 100, 2, 150)));
        c.put("segment_finished_txn_empty", new RemoteLogSegmentMetadata(seg2, 0, 99, 1700000001000L, 2,
                1700000002000L, 1048576, Optional.of(new CustomMetadata(new byte[] {1, 2, 3})),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, epochs(5, 0), true));
        c.put("update_copy_finished", new RemoteLogSegmentMetadataUpdate(seg1, 1700000003000L,
                Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1));
        c.put("update_delete_started", new RemoteLogSegmentMetadataUpdate(seg2, 1700000004000L,
                Optional.of(new CustomMetadata(new byte[] {9, 8, 7, 6})), RemoteLogSegmentState.DELETE_SEGMENT_STARTED, 2));
        c.put("update_delete_finished", new RemoteLogSegmentMetadataUpdate(seg2, 1700000005000L,
                Optional.empty(), RemoteLogSegmentState.DELETE_SEGMENT_FINISHED, 2));
        c.put("partition_delete_marked", new RemotePartitionDeleteMetadata(ORDERS_3,
                RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 1700000006000L, 0));
        c.put("partition_delete_finished", new RemotePartitionDeleteMetadata(EVENTS_0,
                RemotePartitionDeleteState.DELETE_PARTITION_FINISHED, 1700000007000L, 3));
        c.put("snapshot", new RemoteLogSegmentMetadataSnapshot(SEGMENT_1, 100, 199, 1700000000123L, 1,
                1700000008000L, 4096, Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_FINISHED,
                epochs(0, 100, 2, 150), false));
        c.put("snapshot_txn_empty_custom", new RemoteLogSegmentMetadataSnapshot(SEGMENT_2, 0, 99,
                1700000001000L, 2, 1700000009000L, 1048576, Optional.of(new CustomMetadata(new byte[] {0x42})),
                RemoteLogSegmentState.DELETE_SEGMENT_STARTED, epochs(5, 0, 6, 50), true));
        return c;
    }

    static final Uuid[] PARTITION_TOPICS = {TOPIC_1, TOPIC_2, TOPIC_3};
    static final int[] PARTITIONS = {0, 1, 3, 17, 2147483647};
    static final int[] COUNTS = {50, 1, 7, 3};

    static int metadataPartition(Uuid topic, int partition, int n) {
        return new RemoteLogMetadataTopicPartitioner(n)
                .metadataPartition(new TopicIdPartition(topic, new TopicPartition("t", partition)));
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        Map<String, RemoteLogMetadata> cases = cases();
        HexFormat hex = HexFormat.of();
        if (mode.equals("golden")) {
            for (Map.Entry<String, RemoteLogMetadata> e : cases.entrySet()) {
                System.out.println("record " + e.getKey() + " " + hex.formatHex(serde.serialize(e.getValue())));
            }
            for (Uuid t : PARTITION_TOPICS)
                for (int p : PARTITIONS)
                    for (int n : COUNTS)
                        System.out.println("partition " + t + " " + p + " " + n + " " + metadataPartition(t, p, n));
            for (RemoteLogSegmentState s : RemoteLogSegmentState.values())
                System.out.println("state RemoteLogSegmentState " + s + " " + s.id());
            for (RemotePartitionDeleteState s : RemotePartitionDeleteState.values())
                System.out.println("state RemotePartitionDeleteState " + s + " " + s.id());
            return;
        }
        if (mode.equals("expect")) {
            for (int i = 1; i < args.length; i++) {
                RemoteLogMetadata m = cases.get(args[i]);
                if (m == null) throw new IllegalArgumentException("no case " + args[i]);
                System.out.println(m);
            }
            return;
        }
        if (!mode.equals("check")) {
            System.err.println("usage: RemoteLogMetadataGolden golden|check|expect CASE...");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int passed = 0, failed = 0, records = 0, partitions = 0;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            try {
                if (f[0].equals("record") && f.length == 3) {
                    RemoteLogMetadata expected = cases.get(f[1]);
                    if (expected == null) throw new IllegalStateException("no such case");
                    byte[] ours = hex.parseHex(f[2]);
                    byte[] kafka = serde.serialize(expected);
                    if (!Arrays.equals(ours, kafka)) {
                        throw new IllegalStateException("Kafka serializes it as " + hex.formatHex(kafka));
                    }
                    RemoteLogMetadata decoded = serde.deserialize(ours);
                    if (!decoded.equals(expected)) {
                        throw new IllegalStateException("Kafka decodes it as " + decoded + ", want " + expected);
                    }
                    records++;
                } else if (f[0].equals("partition") && f.length == 5) {
                    int want = metadataPartition(Uuid.fromString(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]));
                    if (want != Integer.parseInt(f[4])) {
                        throw new IllegalStateException("Kafka's partitioner picks " + want);
                    }
                    partitions++;
                } else {
                    throw new IllegalStateException("not a record or partition line");
                }
                passed++;
            } catch (Throwable t) {
                System.out.println("FAIL " + line + ": " + t);
                failed++;
            }
        }
        // No ';' in the line: ctest's PASS_REGULAR_EXPRESSION would split the pattern there.
        System.out.println(passed + " passed, " + failed + " failed (" + records + " records, "
                + partitions + " partitions)");
        System.exit(failed == 0 && records > 0 && partitions > 0 ? 0 : 1);
    }
}
