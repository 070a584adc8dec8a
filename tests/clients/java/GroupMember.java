import java.io.BufferedReader;
import java.io.InputStreamReader;
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
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * GroupMember <bootstrap> <group> <topic> [--seconds S] [--max-records K] [--prop key=value]...
 *             [--subscription-pattern REGEX]
 *
 * One KafkaConsumer (the classic group protocol) in group <group>, subscribed to <topic>, for
 * the real-client tests (tests/clients/client_tests.py). It prints one line per event on
 * stdout, flushed at once:
 *
 *   assigned <generation> <member id> <p,p,...|->   after every assignment: the whole of it
 *   revoked <generation> <p,...|->                  partitions taken away (eager: all of them)
 *   lost <p,...|->                                  partitions lost (the member was fenced)
 *   record <partition> <offset> <value>             every record poll returned (up to K)
 *   committed <p>=<offset>,...                      a commitSync of the records printed
 *   commit-failed <exception>: <message>            a commit that failed (e.g. mid-rebalance)
 *   closed <eof|timeout|max-records>                after KafkaConsumer.close() (a dynamic
 *                                                   member sends LeaveGroup, a static one not)
 *
 * Offsets are committed by hand (enable.auto.commit=false) after the records of each poll are
 * printed, so the group consumes at least once; a commit that fails is tried again after the
 * next poll while the partition is still the member's, in onPartitionsRevoked, and before
 * close. It stops when stdin reaches EOF, after S
 * seconds (default 120), or, with --max-records, after printing and committing exactly K
 * records (records a poll returned beyond the K-th are neither printed nor committed).
 * --prop passes consumer settings (session.timeout.ms, client.id, ...). --subscription-pattern
 * subscribes with a regular expression the broker resolves (KIP-848's SubscriptionPattern, with
 * group.protocol=consumer) instead of to <topic>.
 */
public class GroupMember {
    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    static synchronized void emit(String line) {
        OUT.println(line);
        OUT.flush();
    }

    static String partitions(Collection<TopicPartition> tps) {
        TreeSet<Integer> ps = new TreeSet<>();
        for (TopicPartition tp : tps) ps.add(tp.partition());
        if (ps.isEmpty()) return "-";
        StringBuilder b = new StringBuilder();
        for (int p : ps) b.append(b.length() == 0 ? "" : ",").append(p);
        return b.toString();
    }

    /** Offsets read and not yet committed: one past the last record printed, per partition. */
    static final Map<TopicPartition, OffsetAndMetadata> PENDING = new HashMap<>();

    /**
     * commitSync of the pending offsets of `owned`'s partitions. A failed commit (a rebalance
     * under way) stays pending and is tried again after the next poll, while the partition is
     * still this member's.
     */
    static void commitPending(KafkaConsumer<String, String> consumer,
                              Collection<TopicPartition> owned) {
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (TopicPartition tp : owned) {
            if (PENDING.containsKey(tp)) commit.put(tp, PENDING.get(tp));
        }
        if (commit.isEmpty()) return;
        try {
            consumer.commitSync(commit);
            commit.forEach((tp, om) -> PENDING.remove(tp, om));
            List<String> parts = new ArrayList<>();
            TreeMap<Integer, Long> sorted = new TreeMap<>();
            commit.forEach((tp, om) -> sorted.put(tp.partition(), om.offset()));
            sorted.forEach((p, o) -> parts.add(p + "=" + o));
            emit("committed " + String.join(",", parts));
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            emit("commit-failed " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: GroupMember <bootstrap> <group> <topic> [--seconds S] "
                    + "[--max-records K] [--prop key=value]...");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        String topic = args[2];
        long seconds = 120;
        long maxRecords = Long.MAX_VALUE;
        String pattern = null;
        for (int i = 3; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds": seconds = Long.parseLong(args[++i]); break;
                case "--max-records": maxRecords = Long.parseLong(args[++i]); break;
                case "--subscription-pattern": pattern = args[++i]; break;
                case "--prop": {
                    String kv = args[++i];
                    int eq = kv.indexOf('=');
                    props.put(kv.substring(0, eq), kv.substring(eq + 1));
                    break;
                }
                default:
                    System.err.println("GroupMember: unknown argument " + args[i]);
                    System.exit(2);
            }
        }

        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
        AtomicBoolean eof = new AtomicBoolean(false);
        Thread stdin = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                while (r.readLine() != null) { }
            } catch (Exception e) {
                // EOF or a broken pipe: either way, stop.
            }
            eof.set(true);
            consumer.wakeup();
        });
        stdin.setDaemon(true);
        stdin.start();

        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // The last chance to commit what was read of them; the next owner starts there.
                commitPending(consumer, partitions);
                PENDING.keySet().removeAll(partitions);
                emit("revoked " + consumer.groupMetadata().generationId() + " "
                        + partitions(partitions));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                emit("assigned " + consumer.groupMetadata().generationId() + " "
                        + consumer.groupMetadata().memberId() + " " + partitions(consumer.assignment()));
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                PENDING.keySet().removeAll(partitions);
                emit("lost " + partitions(partitions));
            }
        };
        if (pattern != null) {
            consumer.subscribe(new SubscriptionPattern(pattern), listener);
        } else {
            consumer.subscribe(List.of(topic), listener);
        }

        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long printed = 0;
        String reason = "timeout";
        try {
            while (System.nanoTime() < deadline) {
                if (eof.get()) {
                    reason = "eof";
                    break;
                }
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : records) {
                    if (printed == maxRecords) break;
                    emit("record " + r.partition() + " " + r.offset() + " " + r.value());
                    PENDING.put(new TopicPartition(r.topic(), r.partition()),
                            new OffsetAndMetadata(r.offset() + 1));
                    printed++;
                }
                commitPending(consumer, consumer.assignment());
                if (printed == maxRecords) {
                    reason = "max-records";
                    break;
                }
            }
            commitPending(consumer, consumer.assignment());
        } catch (WakeupException e) {
            reason = "eof";
            commitPending(consumer, consumer.assignment());
        }
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(20)));
        emit("closed " + reason);
    }
}
