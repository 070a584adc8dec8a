import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * TxnReader <bootstrap> <topic> <read_committed|read_uncommitted> [--seconds S]
 *
 * Reads every partition of <topic> from the beginning to its end as of the start, for the
 * real-client tests (tests/clients/client_tests.py): a KafkaConsumer with the isolation level
 * given, no group (assign), whose endOffsets are the last stable offsets under read_committed
 * and the high watermarks under read_uncommitted. Lines on stdout:
 *
 *   end <p=offset,...>                   the end offsets it reads up to
 *   record <partition> <offset> <value>  every record poll returned
 *   position <p=offset,...>              the positions when it stopped
 *   done | timeout                       every position reached its end (or S seconds, default
 *                                        30, went by first)
 */
public class TxnReader {
    static String joined(Map<Integer, Long> m) {
        List<String> parts = new ArrayList<>();
        m.forEach((p, o) -> parts.add(p + "=" + o));
        return parts.isEmpty() ? "-" : String.join(",", parts);
    }

    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: TxnReader <bootstrap> <topic> <isolation level> [--seconds S]");
            System.exit(2);
        }
        long seconds = args.length >= 5 && args[3].equals("--seconds") ? Long.parseLong(args[4]) : 30;
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, args[2]);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        boolean done = false;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : consumer.partitionsFor(args[1], Duration.ofSeconds(30))) {
                tps.add(new TopicPartition(pi.topic(), pi.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            TreeMap<Integer, Long> endsByPartition = new TreeMap<>();
            ends.forEach((tp, o) -> endsByPartition.put(tp.partition(), o));
            out.println("end " + joined(endsByPartition));
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            TreeMap<Integer, Long> positions = new TreeMap<>();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    out.println("record " + r.partition() + " " + r.offset() + " " + r.value());
                }
                done = true;
                for (TopicPartition tp : tps) {
                    long pos = consumer.position(tp, Duration.ofSeconds(30));
                    positions.put(tp.partition(), pos);
                    if (pos < ends.get(tp)) done = false;
                }
                if (done) break;
            }
            out.println("position " + joined(positions));
        }
        out.println(done ? "done" : "timeout");
        out.flush();
    }
}
