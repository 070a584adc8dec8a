// The share-group half of bench/compare/broker (issue 31): what a broker's share partitions cost.
//
//   ShareBench --bootstrap-server H:P --topic T --group G --members M --records N
//              [--ack sync|piggyback] [--timeout-s S]
//
// Sets the group config share.auto.offset.reset=earliest on G (IncrementalAlterConfigs, GROUP
// resource), then runs M KafkaShareConsumers of share group G on M threads of this JVM until
// together they have seen every one of the N records of T (each offset of each partition at
// least once; redeliveries are counted apart). Implicit acknowledgement mode, Kafka's default:
//   --ack sync        each member calls commitSync() after every poll that returned records,
//                     timed with System.nanoTime: the ShareAcknowledge round trip, reported as
//                     ack.p50.us / ack.p99.us / ack.max.us over all members' commits;
//   --ack piggyback   no commitSync: the acknowledgements ride on the next ShareFetch (what
//                     kafka-share-consumer-perf-test.sh does); no ack latency then.
// Prints one line:
//   share.bench members=M records=N unique=U delivered=D first.record.ms=F consume.ms=C
//       records.per.sec=R commits=K ack.p50.us=.. ack.p99.us=.. ack.max.us=..
// first.record.ms: from the start of the members until the first record arrived (joining the
// group, the assignment, the share partition's initialisation); consume.ms and records.per.sec:
// from that first record until the last of the N offsets had arrived. Every wait is bounded;
// a timeout exits 1.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class ShareBench {
    private static void usage(String why) {
        System.err.println("ShareBench: " + why);
        System.err.println("usage: ShareBench --bootstrap-server H:P --topic T --group G --members M "
                + "--records N [--ack sync|piggyback] [--timeout-s S]");
        System.exit(2);
    }

    // The offsets seen so far, per partition; one lock (the members' bookkeeping is tiny next to
    // a poll).
    static final class Seen {
        private final Map<Integer, BitSet> bits = new HashMap<>();
        private long unique = 0;
        private long delivered = 0;
        private final long target;
        final AtomicBoolean done = new AtomicBoolean(false);
        volatile long firstNanos = 0;
        volatile long doneNanos = 0;

        Seen(long target) {
            this.target = target;
        }

        synchronized void add(ConsumerRecords<byte[], byte[]> recs) {
            long now = System.nanoTime();
            if (firstNanos == 0 && !recs.isEmpty()) firstNanos = now;
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                delivered++;
                BitSet b = bits.computeIfAbsent(r.partition(), k -> new BitSet());
                int off = (int) r.offset();
                if (!b.get(off)) {
                    b.set(off);
                    unique++;
                }
            }
            if (unique >= target && !done.get()) {
                doneNanos = now;
                done.set(true);
            }
        }

        synchronized long unique() {
            return unique;
        }

        synchronized long delivered() {
            return delivered;
        }
    }

    static final class Member implements Runnable {
        final KafkaShareConsumer<byte[], byte[]> consumer;
        final String topic;
        final Seen seen;
        final boolean sync;
        final AtomicBoolean stop;
        long[] lat = new long[1024];
        int nlat = 0;
        volatile Throwable error;

        Member(Properties p, String topic, Seen seen, boolean sync, AtomicBoolean stop) {
            this.consumer = new KafkaShareConsumer<>(p);
            this.topic = topic;
            this.seen = seen;
            this.sync = sync;
            this.stop = stop;
        }

        @Override
        public void run() {
            try {
                consumer.subscribe(List.of(topic));
                while (!stop.get()) {
                    ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(200));
                    if (recs.isEmpty()) continue;
                    seen.add(recs);
                    if (sync) {
                        long t0 = System.nanoTime();
                        consumer.commitSync(Duration.ofSeconds(30));
                        long d = System.nanoTime() - t0;
                        if (nlat == lat.length) lat = Arrays.copyOf(lat, nlat * 2);
                        lat[nlat++] = d;
                    }
                }
            } catch (WakeupException e) {
                // stopping
            } catch (Throwable t) {
                error = t;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null, topic = null, group = null, ack = "sync";
        int members = 1;
        long records = -1, timeoutS = 300;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) usage("missing value for " + args[i]);
            switch (args[i]) {
                case "--bootstrap-server": bootstrap = args[++i]; break;
                case "--topic": topic = args[++i]; break;
                case "--group": group = args[++i]; break;
                case "--members": members = Integer.parseInt(args[++i]); break;
                case "--records": records = Long.parseLong(args[++i]); break;
                case "--ack": ack = args[++i]; break;
                case "--timeout-s": timeoutS = Long.parseLong(args[++i]); break;
                default: usage("unknown flag " + args[i]);
            }
        }
        if (bootstrap == null || topic == null || group == null || records <= 0 || members <= 0)
            usage("--bootstrap-server, --topic, --group, --members and --records are required");
        if (!ack.equals("sync") && !ack.equals("piggyback")) usage("--ack is sync or piggyback");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);

        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
            Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(res, List.of(new AlterConfigOp(
                    new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(ops).all().get(60, TimeUnit.SECONDS);
        }

        Seen seen = new Seen(records);
        AtomicBoolean stop = new AtomicBoolean(false);
        List<Member> ms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", group);
            p.put("client.id", "share-bench-" + i);
            p.put("share.acknowledgement.mode", "implicit");
            p.put("key.deserializer", ByteArrayDeserializer.class.getName());
            p.put("value.deserializer", ByteArrayDeserializer.class.getName());
            ms.add(new Member(p, topic, seen, ack.equals("sync"), stop));
        }
        long start = System.nanoTime();
        for (int i = 0; i < members; i++) {
            Thread t = new Thread(ms.get(i), "member-" + i);
            threads.add(t);
            t.start();
        }
        int rc = 0;
        while (!seen.done.get()) {
            if (System.nanoTime() > deadline) {
                System.err.println("ShareBench: timeout with " + seen.unique() + " of " + records + " records");
                rc = 1;
                break;
            }
            Member failed = ms.stream().filter(m -> m.error != null).findFirst().orElse(null);
            if (failed != null) {
                System.err.println("ShareBench: a member failed: " + failed.error);
                failed.error.printStackTrace();
                rc = 1;
                break;
            }
            Thread.sleep(5);
        }
        stop.set(true);
        for (Member m : ms) m.consumer.wakeup();
        for (Thread t : threads) t.join(30_000);
        // Close in parallel, bounded: each leaves the group (a last heartbeat).
        List<Thread> closers = new ArrayList<>();
        for (Member m : ms) {
            Thread t = new Thread(() -> {
                try {
                    m.consumer.close(Duration.ofSeconds(10));
                } catch (Throwable e) {
                    // the result is already measured
                }
            });
            closers.add(t);
            t.start();
        }
        for (Thread t : closers) t.join(20_000);
        if (rc != 0) System.exit(rc);

        long n = 0;
        for (Member m : ms) n += m.nlat;
        long[] all = new long[(int) n];
        int k = 0;
        for (Member m : ms) {
            System.arraycopy(m.lat, 0, all, k, m.nlat);
            k += m.nlat;
        }
        Arrays.sort(all);
        double firstMs = (seen.firstNanos - start) / 1e6;
        double consumeMs = (seen.doneNanos - seen.firstNanos) / 1e6;
        System.out.printf("share.bench members=%d records=%d unique=%d delivered=%d first.record.ms=%.1f "
                        + "consume.ms=%.1f records.per.sec=%.1f commits=%d ack.p50.us=%d ack.p99.us=%d "
                        + "ack.max.us=%d%n",
                members, records, seen.unique(), seen.delivered(), firstMs, consumeMs,
                records / Math.max(consumeMs / 1000.0, 1e-6), n, pct(all, 0.50), pct(all, 0.99),
                n == 0 ? -1 : all[all.length - 1] / 1000);
        System.out.flush();
        System.exit(0);
    }

    static long pct(long[] sorted, double q) {
        if (sorted.length == 0) return -1;
        int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(i, 0)] / 1000;
    }
}
