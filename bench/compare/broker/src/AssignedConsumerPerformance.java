// The consumer half of bench/compare/broker: reads N records of one topic from the beginning
// with KafkaConsumer.assign() over all its partitions - no consumer group, because seglog has
// no group coordinator yet - and prints throughput in the shape of Kafka's ConsumerPerformance
// (a header line, then one CSV line), with "assign.time.ms" (metadata, assign, offset reset:
// ListOffsets) where ConsumerPerformance has its rebalance time.
//
//   AssignedConsumerPerformance --bootstrap-server H:P --topic T --messages N
//       [--timeout-ms 60000] [--consumer-property k=v ...]
//
// Exits 1 when fewer than N records arrive before --timeout-ms passes without a record.
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class AssignedConsumerPerformance {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss:SSS").withZone(ZoneId.systemDefault());

    private static void usage(String why) {
        System.err.println("AssignedConsumerPerformance: " + why);
        System.err.println("usage: AssignedConsumerPerformance --bootstrap-server H:P --topic T "
                + "--messages N [--timeout-ms MS] [--consumer-property k=v ...]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        String topic = null;
        long messages = -1;
        long timeoutMs = 60_000;
        Properties props = new Properties();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) usage("missing value after " + a);
            String v = args[++i];
            switch (a) {
                case "--bootstrap-server": bootstrap = v; break;
                case "--topic": topic = v; break;
                case "--messages": messages = Long.parseLong(v); break;
                case "--timeout-ms": timeoutMs = Long.parseLong(v); break;
                case "--consumer-property": {
                    int eq = v.indexOf('=');
                    if (eq <= 0) usage("--consumer-property wants k=v, got " + v);
                    props.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                }
                default: usage("unknown flag " + a);
            }
        }
        if (bootstrap == null || topic == null || messages < 0) usage("missing a required flag");

        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.putIfAbsent(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "assigned-consumer-perf");

        long start = System.currentTimeMillis();
        long count = 0;
        long bytes = 0;
        long assignDoneMs;
        long lastRecordMs;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofMillis(timeoutMs));
            if (infos == null || infos.isEmpty()) {
                System.err.println("AssignedConsumerPerformance: no partitions for topic " + topic);
                System.exit(1);
            }
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : infos) parts.add(new TopicPartition(topic, p.partition()));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            // position() resolves the reset now (ListOffsets), so the fetch time below is fetches only.
            for (TopicPartition tp : parts) consumer.position(tp, Duration.ofMillis(timeoutMs));
            assignDoneMs = System.currentTimeMillis();
            lastRecordMs = assignDoneMs;
            while (count < messages) {
                ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
                long now = System.currentTimeMillis();
                if (recs.isEmpty()) {
                    if (now - lastRecordMs > timeoutMs) break;
                    continue;
                }
                lastRecordMs = now;
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    count++;
                    if (r.key() != null) bytes += r.key().length;
                    if (r.value() != null) bytes += r.value().length;
                }
            }
        }
        long end = lastRecordMs;
        double mb = bytes / (1024.0 * 1024.0);
        double totalSec = Math.max(1, end - start) / 1000.0;
        long fetchMs = Math.max(1, end - assignDoneMs);
        double fetchSec = fetchMs / 1000.0;
        System.out.println("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
                + "nMsg.sec, assign.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec");
        System.out.printf("%s, %s, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f%n",
                TIME.format(Instant.ofEpochMilli(start)), TIME.format(Instant.ofEpochMilli(end)),
                mb, mb / totalSec, count, count / totalSec, assignDoneMs - start, fetchMs,
                mb / fetchSec, count / fetchSec);
        if (count < messages) {
            System.err.printf("AssignedConsumerPerformance: only %d of %d records within %d ms of the last one%n",
                    count, messages, timeoutMs);
            System.exit(1);
        }
    }
}
