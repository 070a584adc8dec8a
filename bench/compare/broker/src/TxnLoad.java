// The transactional half of bench/compare/broker (txn_compare.py): a KafkaProducer with a
// transactional.id that runs N transactions of exactly K records (1 KiB values, round robin
// over the topic's partitions), aborting every A-th, each commit or abort waited for.
//
//   TxnLoad --bootstrap-server H:P --topic T --transactions N --records-per-transaction K
//       [--abort-every A] [--record-size 1024] [--transactional-id ID]
//
// Prints one line: "txn.load transactions=N aborted=M records=R seconds=S records.per.sec=X
// end.p50.ms=.. end.p99.ms=.." (the records/s over everything sent, committed or aborted; the
// commitTransaction/abortTransaction call's time, which includes the flush of the transaction's
// last records). Exits 1 if anything fails.
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class TxnLoad {
    private static void usage(String why) {
        System.err.println("TxnLoad: " + why);
        System.err.println("usage: TxnLoad --bootstrap-server H:P --topic T --transactions N "
                + "--records-per-transaction K [--abort-every A] [--record-size B] "
                + "[--transactional-id ID]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        String topic = null;
        String id = "txn-load";
        int transactions = -1;
        int perTxn = -1;
        int abortEvery = 0;
        int size = 1024;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) usage("missing value after " + a);
            String v = args[++i];
            switch (a) {
                case "--bootstrap-server": bootstrap = v; break;
                case "--topic": topic = v; break;
                case "--transactions": transactions = Integer.parseInt(v); break;
                case "--records-per-transaction": perTxn = Integer.parseInt(v); break;
                case "--abort-every": abortEvery = Integer.parseInt(v); break;
                case "--record-size": size = Integer.parseInt(v); break;
                case "--transactional-id": id = v; break;
                default: usage("unknown option " + a);
            }
        }
        if (bootstrap == null || topic == null || transactions < 1 || perTxn < 1) {
            usage("--bootstrap-server, --topic, --transactions and --records-per-transaction are needed");
        }
        int partitions;
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            partitions = admin.describeTopics(List.of(topic)).allTopicNames().get()
                    .get(topic).partitions().size();
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[] value = new byte[size];
        Arrays.fill(value, (byte) 'v');
        long[] endNs = new long[transactions];
        int aborted = 0;
        long records = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            final long t0 = System.nanoTime();
            for (int t = 0; t < transactions; t++) {
                producer.beginTransaction();
                for (int r = 0; r < perTxn; r++) {
                    producer.send(new ProducerRecord<>(topic, (int) (records % partitions), null, value));
                    records++;
                }
                final long e0 = System.nanoTime();
                if (abortEvery > 0 && (t + 1) % abortEvery == 0) {
                    producer.flush();  // the aborted records reach the log, as a reader meets them
                    producer.abortTransaction();
                    aborted++;
                } else {
                    producer.commitTransaction();
                }
                endNs[t] = System.nanoTime() - e0;
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            Arrays.sort(endNs);
            System.out.printf("txn.load transactions=%d aborted=%d records=%d seconds=%.3f "
                    + "records.per.sec=%.1f end.p50.ms=%.3f end.p99.ms=%.3f%n",
                    transactions, aborted, records, seconds, records / seconds,
                    endNs[transactions / 2] / 1e6,
                    endNs[Math.min(transactions - 1, (int) (transactions * 0.99))] / 1e6);
        }
    }
}
