import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * TxnCopyLoop <bootstrap> <input> <output> <group> <transactional id> --records N
 *             [--abort-every M] [--seconds S] [--prop key=value]...
 *
 * A consume-transform-produce loop, exactly once, for the real-client tests
 * (tests/clients/client_tests.py): a KafkaConsumer in <group> (read_committed, no auto commit)
 * subscribed to <input>, and a transactional KafkaProducer. Each poll that returns records is
 * one transaction: every record goes to <output>'s partition of the same number with the value
 * "copy:" + its value, and the consumer's positions go with it (sendOffsetsToTransaction with
 * the consumer's group metadata). Every M-th transaction is aborted instead of committed: the
 * consumer then seeks back to where the transaction began, and prints the group's committed
 * offsets (OffsetFetch, which must not show the aborted transaction's). It stops when N input
 * records have been copied in committed transactions, or after S seconds (default 90).
 *
 * Lines on stdout:
 *
 *   assigned <p,...>
 *   record <txn> <partition> <offset> <value>     an input record copied in transaction txn
 *   committed <txn> <p=position,...>              with the offsets it committed
 *   aborted <txn> <p=position,...>                with the offsets it would have committed
 *   group-offsets <txn> <p=offset,...|->          the group's committed offsets after an abort
 *   done <copied> | timeout <copied>
 *   failed <exception class>: <message> [<- cause...]
 *   closed
 */
public class TxnCopyLoop {
    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    static synchronized void emit(String line) {
        OUT.println(line);
        OUT.flush();
    }

    static String offsets(Map<TopicPartition, OffsetAndMetadata> m) {
        TreeMap<Integer, Long> sorted = new TreeMap<>();
        m.forEach((tp, om) -> {
            if (om != null) sorted.put(tp.partition(), om.offset());
        });
        if (sorted.isEmpty()) return "-";
        List<String> parts = new ArrayList<>();
        sorted.forEach((p, o) -> parts.add(p + "=" + o));
        return String.join(",", parts);
    }

    public static void main(String[] args) {
        if (args.length < 5) {
            System.err.println("usage: TxnCopyLoop <bootstrap> <input> <output> <group> <txn id> "
                    + "--records N [--abort-every M] [--seconds S] [--prop key=value]...");
            System.exit(2);
        }
        String input = args[1];
        String output = args[2];
        long records = -1;
        int abortEvery = 0;
        long seconds = 90;
        Properties cprops = new Properties();
        cprops.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        cprops.put(ConsumerConfig.GROUP_ID_CONFIG, args[3]);
        cprops.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        cprops.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cprops.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cprops.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        cprops.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cprops.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName());
        Properties pprops = new Properties();
        pprops.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        pprops.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, args[4]);
        pprops.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        pprops.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pprops.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        for (int i = 5; i < args.length; i++) {
            switch (args[i]) {
                case "--records": records = Long.parseLong(args[++i]); break;
                case "--abort-every": abortEvery = Integer.parseInt(args[++i]); break;
                case "--seconds": seconds = Long.parseLong(args[++i]); break;
                case "--prop": {
                    String kv = args[++i];
                    int eq = kv.indexOf('=');
                    pprops.put(kv.substring(0, eq), kv.substring(eq + 1));
                    break;
                }
                default:
                    System.err.println("TxnCopyLoop: unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        if (records < 0) {
            System.err.println("TxnCopyLoop: --records is required");
            System.exit(2);
        }

        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cprops);
        KafkaProducer<String, String> producer = new KafkaProducer<>(pprops);
        long copied = 0;
        int txn = 0;
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(input), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) { }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    TreeMap<Integer, Boolean> ps = new TreeMap<>();
                    for (TopicPartition tp : consumer.assignment()) ps.put(tp.partition(), true);
                    List<String> names = new ArrayList<>();
                    ps.keySet().forEach(p -> names.add(String.valueOf(p)));
                    emit("assigned " + (names.isEmpty() ? "-" : String.join(",", names)));
                }
            });
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            while (copied < records && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(200));
                if (batch.isEmpty()) continue;
                producer.beginTransaction();
                Map<TopicPartition, Long> first = new HashMap<>();
                for (ConsumerRecord<String, String> r : batch) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    first.putIfAbsent(tp, r.offset());
                    producer.send(new ProducerRecord<>(output, r.partition(), r.key(),
                            "copy:" + r.value()));
                    emit("record " + txn + " " + r.partition() + " " + r.offset() + " " + r.value());
                }
                Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
                for (TopicPartition tp : batch.partitions()) {
                    positions.put(tp, new OffsetAndMetadata(consumer.position(tp)));
                }
                producer.sendOffsetsToTransaction(positions, consumer.groupMetadata());
                if (abortEvery > 0 && (txn + 1) % abortEvery == 0) {
                    producer.flush();  // the aborted copies reach the log first
                    producer.abortTransaction();
                    emit("aborted " + txn + " " + offsets(positions));
                    first.forEach(consumer::seek);
                    emit("group-offsets " + txn + " "
                            + offsets(consumer.committed(consumer.assignment(),
                                                         Duration.ofSeconds(30))));
                } else {
                    producer.commitTransaction();
                    copied += batch.count();
                    emit("committed " + txn + " " + offsets(positions));
                }
                txn++;
            }
            emit((copied >= records ? "done " : "timeout ") + copied);
        } catch (Exception e) {
            emit("failed " + TxnProducer.describe(e));
        }
        try {
            producer.close(Duration.ofSeconds(10));
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(20)));
        } catch (Exception e) {
            emit("close-failed " + TxnProducer.describe(e));
        }
        emit("closed");
    }
}
