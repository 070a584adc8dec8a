// The consumer-group half of bench/compare/broker: what a broker's group coordinator costs.
//
//   GroupBench rebalance --bootstrap-server H:P --topic T --members M [--rounds R]
//       M consumers of one group share T; then a further member joins, R times (leaving again
//       in between), and each join is timed from its subscribe() until every member - the old
//       ones too - has its partitions of the new generation (onPartitionsAssigned). Prints
//       "rebalance.ms round=i ms=..." per round and "rebalance.ms median=... max=...".
//   GroupBench consume --bootstrap-server H:P --topic T --members M --records N
//       M consumers of a new group read T from the beginning until together they have N
//       records (ConsumerPerformance runs one consumer per process and stops at its own count,
//       so M of them cannot stop at the group's total). Prints "group.consume records=...
//       members=... first.assignment.ms=... fetch.ms=... mb.per.sec=... records.per.sec=...":
//       the time until every member had partitions, then the time to read N after that.
//   GroupBench commits --bootstrap-server H:P --topic T [--seconds S]
//       one group member commits its position with commitSync() as fast as it can for S
//       seconds: OffsetCommit round trips. Prints "commits.per.sec count=... seconds=... rate=...".
//
// Both use the classic protocol with the clients' defaults (heartbeat.interval.ms 3000,
// session.timeout.ms 45000, the range and cooperative-sticky assignors), which is what the
// broker-side times depend on as much as the coordinator; the same settings run against
// seglog and Kafka. Every wait is bounded; a timeout exits 1.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class GroupBench {
    private static void usage(String why) {
        System.err.println("GroupBench: " + why);
        System.err.println("usage: GroupBench rebalance|consume|commits --bootstrap-server H:P --topic T "
                + "[--members M] [--rounds R] [--records N] [--seconds S]");
        System.exit(2);
    }

    private static Properties props(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return p;
    }

    // One group member on its own thread, polling until stopped, counting the generations it
    // has been given (every onPartitionsAssigned call).
    static final class Member implements Runnable {
        final KafkaConsumer<byte[], byte[]> consumer;
        final String topic;
        final AtomicInteger assignments = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread = new Thread(this);
        volatile long lastAssignedNanos;

        Member(String bootstrap, String group, String topic) {
            this.consumer = new KafkaConsumer<>(props(bootstrap, group));
            this.topic = topic;
        }

        public void run() {
            consumer.subscribe(Collections.singletonList(topic), new ConsumerRebalanceListener() {
                public void onPartitionsRevoked(Collection<TopicPartition> p) {}
                public void onPartitionsAssigned(Collection<TopicPartition> p) {
                    lastAssignedNanos = System.nanoTime();
                    assignments.incrementAndGet();
                }
            });
            while (!stop.get()) consumer.poll(Duration.ofMillis(100));
            consumer.close(Duration.ofSeconds(10));
        }
    }

    // Waits until every member has been assigned more times than `before` says.
    static boolean awaitAssigned(List<Member> members, List<Integer> before, long deadlineNanos)
            throws InterruptedException {
        while (System.nanoTime() < deadlineNanos) {
            boolean all = true;
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).assignments.get() <= before.get(i)) all = false;
            }
            if (all) return true;
            Thread.sleep(5);
        }
        return false;
    }

    static void rebalance(String bootstrap, String topic, int m, int rounds) throws Exception {
        String group = "bench-rebalance-" + System.nanoTime();
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            Member x = new Member(bootstrap, group, topic);
            members.add(x);
            x.thread.start();
        }
        long deadline = System.nanoTime() + 120_000_000_000L;
        // Settled: every member assigned, and no assignment for a second.
        while (true) {
            boolean all = true;
            long newest = 0;
            for (Member x : members) {
                if (x.assignments.get() == 0) all = false;
                newest = Math.max(newest, x.lastAssignedNanos);
            }
            if (all && System.nanoTime() - newest > 1_000_000_000L) break;
            if (System.nanoTime() > deadline) throw new RuntimeException("the group did not settle");
            Thread.sleep(20);
        }
        List<Long> times = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            List<Integer> before = new ArrayList<>();
            for (Member x : members) before.add(x.assignments.get());
            Member joiner = new Member(bootstrap, group, topic);
            List<Member> all = new ArrayList<>(members);
            all.add(joiner);
            before.add(0);
            long t0 = System.nanoTime();
            joiner.thread.start();
            if (!awaitAssigned(all, before, t0 + 120_000_000_000L)) {
                throw new RuntimeException("round " + r + ": the join did not complete");
            }
            long last = 0;
            for (Member x : all) last = Math.max(last, x.lastAssignedNanos);
            long ms = (last - t0) / 1_000_000;
            times.add(ms);
            System.out.println("rebalance.ms round=" + r + " ms=" + ms);
            // The joiner leaves again; wait for the others to settle on the old shape.
            List<Integer> mid = new ArrayList<>();
            for (Member x : members) mid.add(x.assignments.get());
            joiner.stop.set(true);
            joiner.thread.join(30_000);
            if (!awaitAssigned(members, mid, System.nanoTime() + 120_000_000_000L)) {
                throw new RuntimeException("round " + r + ": the leave did not complete");
            }
            Thread.sleep(500);
        }
        for (Member x : members) x.stop.set(true);
        for (Member x : members) x.thread.join(30_000);
        Collections.sort(times);
        System.out.println("rebalance.ms median=" + times.get(times.size() / 2) + " max="
                + times.get(times.size() - 1) + " rounds=" + times.size());
    }

    static void consume(String bootstrap, String topic, int m, long records) throws Exception {
        String group = "bench-consume-" + System.nanoTime();
        AtomicLong count = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicInteger assigned = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        AtomicLong allAssignedNanos = new AtomicLong();
        for (int i = 0; i < m; i++) {
            Thread t = new Thread(() -> {
                try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props(bootstrap, group))) {
                    AtomicBoolean mine = new AtomicBoolean();
                    c.subscribe(Collections.singletonList(topic), new ConsumerRebalanceListener() {
                        public void onPartitionsRevoked(Collection<TopicPartition> p) {}
                        public void onPartitionsAssigned(Collection<TopicPartition> p) {
                            if (!mine.getAndSet(true) && assigned.incrementAndGet() == m) {
                                allAssignedNanos.set(System.nanoTime());
                            }
                        }
                    });
                    while (!stop.get()) {
                        for (var r : c.poll(Duration.ofMillis(100))) {
                            bytes.addAndGet(r.serializedValueSize());
                            if (count.incrementAndGet() >= records) stop.set(true);
                        }
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        long deadline = t0 + 300_000_000_000L;
        while (!stop.get() && System.nanoTime() < deadline) Thread.sleep(2);
        long done = System.nanoTime();
        stop.set(true);
        for (Thread t : threads) t.join(30_000);
        if (count.get() < records) throw new RuntimeException("read " + count.get() + " of " + records);
        long assignedAt = allAssignedNanos.get() == 0 ? done : allAssignedNanos.get();
        double fetchS = Math.max(1e-3, (done - assignedAt) / 1e9);
        System.out.printf("group.consume records=%d members=%d first.assignment.ms=%d fetch.ms=%d "
                + "mb.per.sec=%.2f records.per.sec=%.1f%n", count.get(), m, (assignedAt - t0) / 1_000_000,
                (done - assignedAt) / 1_000_000, bytes.get() / 1048576.0 / fetchS, count.get() / fetchS);
    }

    static void commits(String bootstrap, String topic, int seconds) throws Exception {
        try (KafkaConsumer<byte[], byte[]> c =
                     new KafkaConsumer<>(props(bootstrap, "bench-commits-" + System.nanoTime()))) {
            c.subscribe(Collections.singletonList(topic));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (c.assignment().isEmpty()) {
                c.poll(Duration.ofMillis(100));
                if (System.nanoTime() > deadline) throw new RuntimeException("no assignment");
            }
            Set<TopicPartition> parts = c.assignment();
            for (TopicPartition tp : parts) c.position(tp);
            long t0 = System.nanoTime();
            long end = t0 + seconds * 1_000_000_000L;
            long n = 0;
            while (System.nanoTime() < end) {
                c.commitSync(Duration.ofSeconds(10));
                n++;
            }
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("commits.per.sec count=%d seconds=%.2f rate=%.1f partitions=%d%n", n, s,
                    n / s, parts.size());
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) usage("no mode");
        String mode = args[0];
        String bootstrap = null;
        String topic = null;
        int members = 3;
        int rounds = 3;
        int seconds = 10;
        long records = -1;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) usage("missing value after " + a);
            String v = args[++i];
            switch (a) {
                case "--bootstrap-server": bootstrap = v; break;
                case "--topic": topic = v; break;
                case "--members": members = Integer.parseInt(v); break;
                case "--rounds": rounds = Integer.parseInt(v); break;
                case "--seconds": seconds = Integer.parseInt(v); break;
                case "--records": records = Long.parseLong(v); break;
                default: usage("unknown flag " + a);
            }
        }
        if (bootstrap == null || topic == null) usage("--bootstrap-server and --topic are required");
        switch (mode) {
            case "rebalance": rebalance(bootstrap, topic, members, rounds); break;
            case "commits": commits(bootstrap, topic, seconds); break;
            case "consume":
                if (records <= 0) usage("consume needs --records");
                consume(bootstrap, topic, members, records);
                break;
            default: usage("unknown mode " + mode);
        }
    }
}
