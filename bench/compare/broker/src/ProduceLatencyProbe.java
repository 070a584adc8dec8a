// The service-time half of bench/compare/broker: one record in flight at a time (linger.ms=0,
// max.in.flight.requests.per.connection=1, each send waited for), so every latency is one
// Produce round trip through the broker and none is time in the producer's buffer, measured
// with System.nanoTime and reported in microseconds (ProducerPerformance reports whole
// milliseconds, which a round trip on loopback is far below).
//
//   ProduceLatencyProbe --bootstrap-server H:P --topic T --records N [--warmup-records W]
//       [--record-size 1024] [--producer-property k=v ...]
//
// Prints one line: "latency.us records=N p50=.. p90=.. p99=.. p999=.. max=.. mean=.." over
// the records after the first W (default N/5). Exits 1 if any send fails.
import java.util.Arrays;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class ProduceLatencyProbe {
    private static void usage(String why) {
        System.err.println("ProduceLatencyProbe: " + why);
        System.err.println("usage: ProduceLatencyProbe --bootstrap-server H:P --topic T --records N "
                + "[--warmup-records W] [--record-size B] [--producer-property k=v ...]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        String topic = null;
        int records = -1;
        int warmup = -1;
        int size = 1024;
        Properties props = new Properties();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) usage("missing value after " + a);
            String v = args[++i];
            switch (a) {
                case "--bootstrap-server": bootstrap = v; break;
                case "--topic": topic = v; break;
                case "--records": records = Integer.parseInt(v); break;
                case "--warmup-records": warmup = Integer.parseInt(v); break;
                case "--record-size": size = Integer.parseInt(v); break;
                case "--producer-property": {
                    int eq = v.indexOf('=');
                    if (eq <= 0) usage("--producer-property wants k=v, got " + v);
                    props.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                }
                default: usage("unknown flag " + a);
            }
        }
        if (bootstrap == null || topic == null || records <= 0) usage("--bootstrap-server, --topic and --records are required");
        if (warmup < 0) warmup = records / 5;
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[] value = new byte[size];
        for (int i = 0; i < size; i++) value[i] = (byte) ('a' + i % 26);
        long[] us = new long[records - Math.min(warmup, records - 1)];
        int n = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < records; i++) {
                long t0 = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, value)).get();
                long t1 = System.nanoTime();
                if (i >= records - us.length) us[n++] = (t1 - t0) / 1000;
            }
        }
        Arrays.sort(us);
        double mean = 0;
        for (long v : us) mean += v;
        mean /= us.length;
        System.out.printf("latency.us records=%d p50=%d p90=%d p99=%d p999=%d max=%d mean=%.1f%n", us.length,
                pct(us, 0.50), pct(us, 0.90), pct(us, 0.99), pct(us, 0.999), us[us.length - 1], mean);
    }

    private static long pct(long[] sorted, double p) {
        int at = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, at))];
    }
}
