import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of interop/kafka/move/mirrormaker_check.py, run against either broker
 * (seglog serve or the real Kafka 4.4.0 one). Every command prints one JSON document on stdout.
 *
 *   create-topic BOOTSTRAP TOPIC PARTITIONS [key=value ...]
 *       Admin.createTopics with those topic configs (replication factor 1).
 *   produce BOOTSTRAP TOPIC PARTITIONS FROM TO BASE_TS
 *       records i in [FROM, TO) to partition i % PARTITIONS, key "key-<i>", value "value-<i>",
 *       header "seq" = "<i>", timestamp BASE_TS + i; acks=all, idempotent. Prints the
 *       acknowledged offsets.
 *   consume-group BOOTSTRAP GROUP TOPIC COUNT IDLE_MS TIMEOUT_MS
 *       subscribes with group GROUP (classic protocol, auto.offset.reset=earliest, no auto
 *       commit), takes exactly COUNT records (or all it gets before TIMEOUT_MS), keeps polling
 *       IDLE_MS more to see any extra record, commits the position after the last record it took
 *       per partition and leaves the group. Prints the records taken and the extra ones seen.
 *   dump BOOTSTRAP TOPIC
 *       every record of every partition from the log start to the end offsets seen at start.
 *   describe BOOTSTRAP TOPIC GROUP...
 *       the topic's partition count (or -1 when it does not exist), its configs that are not
 *       defaults (name, value, source) and each group's committed offsets.
 */
public class MirrorCheck {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] a) throws Exception {
        Object out;
        switch (a[0]) {
            case "create-topic": out = createTopic(a); break;
            case "produce": out = produce(a); break;
            case "consume-group": out = consumeGroup(a); break;
            case "dump": out = dump(a[1], a[2]); break;
            case "describe": out = describe(a); break;
            default: throw new IllegalArgumentException("unknown command " + a[0]);
        }
        System.out.println(JSON.writeValueAsString(out));
    }

    static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(p);
    }

    static Object createTopic(String[] a) throws Exception {
        Map<String, String> configs = new TreeMap<>();
        for (int i = 4; i < a.length; i++) {
            String[] kv = a[i].split("=", 2);
            configs.put(kv[0], kv[1]);
        }
        try (Admin admin = admin(a[1])) {
            NewTopic t = new NewTopic(a[2], Integer.parseInt(a[3]), (short) 1).configs(configs);
            admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of("created", a[2]);
    }

    static Object produce(String[] a) throws Exception {
        String topic = a[2];
        int partitions = Integer.parseInt(a[3]);
        int from = Integer.parseInt(a[4]), to = Integer.parseInt(a[5]);
        long baseTs = Long.parseLong(a[6]);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, a[1]);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Map<String, Object>> acked = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> fs = new ArrayList<>();
            for (int i = from; i < to; i++) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, i % partitions, baseTs + i,
                        utf8("key-" + i), utf8("value-" + i));
                r.headers().add("seq", utf8(Integer.toString(i)));
                fs.add(producer.send(r));
            }
            producer.flush();
            for (int i = from; i < to; i++) {
                var md = fs.get(i - from).get(30, TimeUnit.SECONDS);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("i", i);
                m.put("partition", md.partition());
                m.put("offset", md.offset());
                acked.add(m);
            }
        }
        return Map.of("acked", acked);
    }

    static Properties consumerProps(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    static Map<String, Object> record(ConsumerRecord<byte[], byte[]> r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("partition", r.partition());
        m.put("offset", r.offset());
        m.put("timestamp", r.timestamp());
        m.put("key", r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8));
        m.put("value", r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
        List<List<String>> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(List.of(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8)));
        }
        m.put("headers", headers);
        return m;
    }

    static Object consumeGroup(String[] a) {
        String bootstrap = a[1], group = a[2], topic = a[3];
        int count = Integer.parseInt(a[4]);
        long idleMs = Long.parseLong(a[5]), timeoutMs = Long.parseLong(a[6]);
        List<Map<String, Object>> taken = new ArrayList<>();
        List<Map<String, Object>> extra = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(bootstrap, group))) {
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (taken.size() < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (taken.size() < count) {
                        taken.add(record(r));
                        commit.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    } else {
                        extra.add(record(r));
                    }
                }
            }
            long idleEnd = System.currentTimeMillis() + idleMs;
            while (System.currentTimeMillis() < idleEnd) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) extra.add(record(r));
            }
            if (!commit.isEmpty()) c.commitSync(commit, Duration.ofSeconds(30));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("taken", taken);
        out.put("extra", extra);
        Map<String, Long> committed = new TreeMap<>();
        commit.forEach((tp, o) -> committed.put(Integer.toString(tp.partition()), o.offset()));
        out.put("committed", committed);
        return out;
    }

    static Object dump(String bootstrap, String topic) {
        List<Map<String, Object>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(bootstrap, null))) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            long deadline = System.currentTimeMillis() + 60000;
            while (System.currentTimeMillis() < deadline) {
                boolean done = true;
                for (TopicPartition tp : tps) done &= c.position(tp, Duration.ofSeconds(30)) >= end.get(tp);
                if (done) break;
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) records.add(record(r));
                }
            }
        }
        return Map.of("records", records);
    }

    static Object describe(String[] a) throws Exception {
        String topic = a[2];
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = admin(a[1])) {
            int partitions = -1;
            List<Map<String, String>> configs = new ArrayList<>();
            try {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
                partitions = d.partitions().size();
                ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
                for (ConfigEntry e : cfg.entries()) {
                    if (e.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG) continue;
                    configs.add(Map.of("name", e.name(), "value", String.valueOf(e.value()),
                            "source", e.source().toString()));
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
            }
            out.put("partitions", partitions);
            out.put("configs", configs);
            Map<String, Object> groups = new TreeMap<>();
            for (int i = 3; i < a.length; i++) {
                Map<TopicPartition, OffsetAndMetadata> offs = admin.listConsumerGroupOffsets(a[i])
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<String, Long> m = new TreeMap<>();
                offs.forEach((tp, o) -> {
                    if (o != null && tp.topic().equals(topic)) m.put(Integer.toString(tp.partition()), o.offset());
                });
                groups.put(a[i], m);
            }
            out.put("groups", groups);
        }
        return out;
    }

    static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }
}
