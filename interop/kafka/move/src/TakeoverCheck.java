import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.DescribeUserScramCredentialsResult;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The client side of interop/kafka/move/kraft_takeover_check.py: one long-lived JVM that reads
 * one command per line on stdin (words separated by spaces) and prints one JSON document per
 * command on stdout ({"error": ...} when the command failed). One JVM for the whole test saves a
 * JVM start per client call, and it lets two producers live across the broker switches: the
 * broker program under them changes (seglog serve, then Kafka, then seglog ...) on the same
 * address while they keep their producer id, epoch and sequence numbers.
 *
 * MirrorCheck's commands, run in this JVM (same arguments as its main):
 *   create-topic BOOTSTRAP TOPIC PARTITIONS [key=value ...]
 *   produce BOOTSTRAP TOPIC PARTITIONS FROM TO BASE_TS       (a fresh idempotent producer)
 * Own commands (records i: key, value, header "seq" = i, timestamp BASE_TS + i,
 * partition i % PARTITIONS; every acked record's partition and offset are printed):
 *   produce-keyed BOOTSTRAP TOPIC PARTITIONS FROM TO BASE_TS
 *       fresh idempotent producer; key "k-<i % 11>", value "v-<i>" or null (a tombstone) when
 *       i % 5 == 4.
 *   idem-send BOOTSTRAP TOPIC PARTITIONS FROM TO BASE_TS
 *       the long-lived idempotent producer (created at its first use); key-<i>/value-<i>.
 *   txn BOOTSTRAP TOPIC PARTITIONS FROM TO commit|abort|open
 *       the long-lived transactional producer (transactional.id takeover-long): begins a
 *       transaction, sends t-<i>/tv-<i>, flushes, then commits, aborts or leaves it open.
 *   txn-end BOOTSTRAP commit|abort
 *       ends the long-lived producer's open transaction (begun on another broker, maybe).
 *   txn-fresh BOOTSTRAP TXN_ID TOPIC PARTITIONS FROM TO commit|abort
 *       a new producer with that transactional.id: initTransactions, one transaction, close.
 *   After every commit/abort the command waits until the coordinator reports the transaction
 *   complete (its markers written), so that the next write's offsets are known.
 *   delete-topic BOOTSTRAP TOPIC
 *   alter-config BOOTSTRAP TOPIC key=value        (incrementalAlterConfigs SET)
 *   dump BOOTSTRAP TOPIC read_committed|read_uncommitted
 *       every record from the log start to the end offsets seen at start (the last stable offset
 *       for read_committed), and the start/end offsets.
 *   consume BOOTSTRAP GROUP classic|consumer TOPIC COUNT IDLE_MS TIMEOUT_MS
 *       read_committed, auto.offset.reset=earliest, no auto commit: takes COUNT records, polls
 *       IDLE_MS more for extra ones, commits the position after the last record taken per
 *       partition and leaves the group.
 *   offsets-for-times BOOTSTRAP TOPIC TS[,TS...]
 *       ListOffsets per partition for each timestamp, and for max-timestamp.
 *   state BOOTSTRAP TOPICS GROUPS TXN_IDS     (comma-separated lists, "-" for none)
 *       the cluster id, controller, nodes and finalized features; every topic's name (internal
 *       ones too); for each named topic its id, partition count,
 *       leaders and non-default configs; each group's type, state, epochs and committed offsets;
 *       describeProducers of every partition of the named topics; listTransactions and
 *       describeTransactions of the named transactional ids.
 *   close-long
 *       closes the two long-lived producers.
 * For --kafka-first (a directory Kafka made, with what seglog keeps but does not serve):
 *   produce-kind BOOTSTRAP TOPIC PARTITIONS FROM TO BASE_TS plain|keyed|big
 *       a fresh idempotent producer; "big": key big-<i>, value bigValue(i) (about 40 KB, so a
 *       topic with segment.bytes 1 MiB rolls).
 *   scram-set BOOTSTRAP USER SCRAM-SHA-256|SCRAM-SHA-512 ITERATIONS PASSWORD
 *   scram-delete BOOTSTRAP USER SCRAM-SHA-256|SCRAM-SHA-512
 *       AlterUserScramCredentials (an upsertion or a deletion).
 *   acl-add|acl-delete BOOTSTRAP RESOURCE_TYPE PATTERN_TYPE NAME PRINCIPAL HOST OPERATION PERMISSION
 *       CreateAcls / DeleteAcls of exactly that binding (names as AclBinding prints them, e.g.
 *       TOPIC LITERAL orders User:alice * READ ALLOW).
 *   quota-set BOOTSTRAP ENTITY_TYPE ENTITY_NAME KEY VALUE|-     (AlterClientQuotas; - removes)
 *   config-set BOOTSTRAP RESOURCE_TYPE NAME key=value           (incrementalAlterConfigs SET on
 *       any resource type, e.g. GROUP g-consumer consumer.session.timeout.ms=50000)
 *   kafka-state BOOTSTRAP GROUPS
 *       what only Kafka answers here: DescribeUserScramCredentials (users, mechanisms,
 *       iterations), DescribeAcls (every binding), DescribeClientQuotas, the cluster-wide
 *       dynamic broker configs (DescribeConfigs BROKER "", DYNAMIC_DEFAULT_BROKER_CONFIG entries),
 *       and the named groups' dynamic configs.
 * dump prints a value longer than 1024 characters as "sha256:<hex>:<length>", and a record
 * with a LogAppendTime timestamp with "tsType": "LogAppendTime".
 */
public class TakeoverCheck {
    static KafkaProducer<byte[], byte[]> idem;
    static KafkaProducer<byte[], byte[]> txn;
    static final String LONG_TXN_ID = "takeover-long";

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.strip();
            if (line.isEmpty()) continue;
            if (line.equals("quit")) break;
            String[] a = line.split(" ");
            Object out;
            try {
                out = run(a);
            } catch (Throwable e) {
                Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                StringWriter sw = new StringWriter();
                c.printStackTrace(new PrintWriter(sw));
                Map<String, Object> err = new LinkedHashMap<>();
                err.put("error", c.getClass().getName() + ": " + c.getMessage());
                err.put("trace", sw.toString().lines().limit(12).reduce("", (x, y) -> x + y + "\n"));
                out = err;
            }
            System.out.println(MirrorCheck.JSON.writeValueAsString(out));
            System.out.flush();
        }
        closeLong();
    }

    static Object run(String[] a) throws Exception {
        switch (a[0]) {
            case "create-topic": return MirrorCheck.createTopic(a);
            case "produce": return MirrorCheck.produce(a);
            case "produce-keyed": return produceKeyed(a);
            case "idem-send": return idemSend(a);
            case "txn": return txnRun(a);
            case "txn-end": return txnEnd(a);
            case "txn-fresh": return txnFresh(a);
            case "delete-topic": return deleteTopic(a);
            case "alter-config": return alterConfig(a);
            case "dump": return dump(a[1], a[2], a[3]);
            case "consume": return consume(a);
            case "offsets-for-times": return offsetsForTimes(a);
            case "state": return state(a);
            case "close-long": closeLong(); return Map.of("closed", true);
            case "produce-kind": return produceKind(a);
            case "scram-set": return scram(a, true);
            case "scram-delete": return scram(a, false);
            case "acl-add": return acl(a, true);
            case "acl-delete": return acl(a, false);
            case "quota-set": return quotaSet(a);
            case "config-set": return configSet(a);
            case "kafka-state": return kafkaState(a);
            default: throw new IllegalArgumentException("unknown command " + a[0]);
        }
    }

    static byte[] utf8(String s) { return s == null ? null : s.getBytes(StandardCharsets.UTF_8); }

    static Properties producerProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        // Long enough to ride over a broker switch (the broker is down while it happens; the
        // test sends nothing then, but a retry of the last request may be pending).
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    static ProducerRecord<byte[], byte[]> rec(String topic, int partitions, int i, long baseTs, String key, String value) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, i % partitions, baseTs + i, utf8(key), utf8(value));
        r.headers().add("seq", utf8(Integer.toString(i)));
        return r;
    }

    /** Sends records [from, to) and returns their acks, in order. */
    static List<Map<String, Object>> send(KafkaProducer<byte[], byte[]> producer, String topic, int partitions,
                                          int from, int to, long baseTs, String kind) throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (int i = from; i < to; i++) {
            String key, value;
            switch (kind) {
                case "keyed": key = "k-" + (i % 11); value = i % 5 == 4 ? null : "v-" + i; break;
                case "txn": key = "t-" + i; value = "tv-" + i; break;
                case "big": key = "big-" + i; value = bigValue(i); break;
                default: key = "key-" + i; value = "value-" + i;
            }
            fs.add(producer.send(rec(topic, partitions, i, baseTs, key, value)));
        }
        producer.flush();
        List<Map<String, Object>> acked = new ArrayList<>();
        for (int i = from; i < to; i++) {
            RecordMetadata md = fs.get(i - from).get(60, TimeUnit.SECONDS);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("i", i);
            m.put("partition", md.partition());
            m.put("offset", md.offset());
            acked.add(m);
        }
        return acked;
    }

    static Object produceKeyed(String[] a) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerProps(a[1]))) {
            return Map.of("acked", send(p, a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                    Integer.parseInt(a[5]), Long.parseLong(a[6]), "keyed"));
        }
    }

    static Object idemSend(String[] a) throws Exception {
        if (idem == null) idem = new KafkaProducer<>(producerProps(a[1]));
        return Map.of("acked", send(idem, a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                Integer.parseInt(a[5]), Long.parseLong(a[6]), "plain"));
    }

    static Properties txnProps(String bootstrap, String id) {
        Properties p = producerProps(bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        // An open transaction lives across a broker switch; the coordinator must not abort it.
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        return p;
    }

    /** Waits until the coordinator has written the markers of txnId's last transaction. */
    static void awaitComplete(String bootstrap, String txnId) throws Exception {
        long deadline = System.currentTimeMillis() + 30000;
        TransactionState last = null;
        try (Admin admin = MirrorCheck.admin(bootstrap)) {
            while (System.currentTimeMillis() < deadline) {
                TransactionDescription d = admin.describeTransactions(List.of(txnId)).description(txnId)
                        .get(30, TimeUnit.SECONDS);
                last = d.state();
                if (last == TransactionState.COMPLETE_COMMIT || last == TransactionState.COMPLETE_ABORT
                        || last == TransactionState.EMPTY) return;
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("transaction " + txnId + " still " + last + " after 30 s");
    }

    static Object txnRun(String[] a) throws Exception {
        if (txn == null) {
            txn = new KafkaProducer<>(txnProps(a[1], LONG_TXN_ID));
            txn.initTransactions();
        }
        txn.beginTransaction();
        List<Map<String, Object>> acked = send(txn, a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                Integer.parseInt(a[5]), Long.parseLong(a[6]), "txn");
        String end = a[7];
        if (end.equals("commit")) txn.commitTransaction();
        else if (end.equals("abort")) txn.abortTransaction();
        if (!end.equals("open")) awaitComplete(a[1], LONG_TXN_ID);
        return Map.of("acked", acked);
    }

    static Object txnEnd(String[] a) throws Exception {
        if (txn == null) throw new IllegalStateException("no long-lived transactional producer");
        if (a[2].equals("commit")) txn.commitTransaction();
        else txn.abortTransaction();
        awaitComplete(a[1], LONG_TXN_ID);
        return Map.of("ended", a[2]);
    }

    static Object txnFresh(String[] a) throws Exception {
        List<Map<String, Object>> acked;
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(txnProps(a[1], a[2]))) {
            p.initTransactions();
            p.beginTransaction();
            acked = send(p, a[3], Integer.parseInt(a[4]), Integer.parseInt(a[5]), Integer.parseInt(a[6]),
                    Long.parseLong(a[7]), "txn");
            if (a[8].equals("commit")) p.commitTransaction();
            else p.abortTransaction();
        }
        awaitComplete(a[1], a[2]);
        return Map.of("acked", acked);
    }

    static void closeLong() {
        if (idem != null) idem.close(Duration.ofSeconds(30));
        if (txn != null) txn.close(Duration.ofSeconds(30));
        idem = null;
        txn = null;
    }

    /** The value of record i of kind "big": about 40 KB, the same in kraft_takeover_check.py. */
    static String bigValue(int i) {
        return "big-" + i + "-" + "0123456789abcdef".repeat(2500);
    }

    static String sha256(String s) throws Exception {
        StringBuilder out = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(utf8(s))) out.append(String.format("%02x", b));
        return out.toString();
    }

    /** MirrorCheck.record, with long values hashed and LogAppendTime timestamps marked. */
    static Map<String, Object> record(ConsumerRecord<byte[], byte[]> r) {
        Map<String, Object> m = MirrorCheck.record(r);
        Object v = m.get("value");
        if (v instanceof String s && s.length() > 1024) {
            try {
                m.put("value", "sha256:" + sha256(s) + ":" + s.length());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        if (r.timestampType() == TimestampType.LOG_APPEND_TIME) m.put("tsType", "LogAppendTime");
        return m;
    }

    static Object produceKind(String[] a) throws Exception {
        Properties props = producerProps(a[1]);
        // A 40 KB record is more than a default batch (16 KB): room for a few per batch.
        if (a[7].equals("big")) props.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
            return Map.of("acked", send(p, a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                    Integer.parseInt(a[5]), Long.parseLong(a[6]), a[7]));
        }
    }

    static Object scram(String[] a, boolean set) throws Exception {
        ScramMechanism mech = ScramMechanism.fromMechanismName(a[3]);
        if (mech == ScramMechanism.UNKNOWN) throw new IllegalArgumentException("mechanism " + a[3]);
        UserScramCredentialAlteration alt = set
                ? new UserScramCredentialUpsertion(a[2], new ScramCredentialInfo(mech, Integer.parseInt(a[4])), a[5])
                : new UserScramCredentialDeletion(a[2], mech);
        try (Admin admin = MirrorCheck.admin(a[1])) {
            admin.alterUserScramCredentials(List.of(alt)).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of(set ? "set" : "deleted", a[2] + " " + a[3]);
    }

    static Object acl(String[] a, boolean add) throws Exception {
        ResourcePattern pattern = new ResourcePattern(ResourceType.fromString(a[2]), a[4], PatternType.fromString(a[3]));
        AccessControlEntry entry = new AccessControlEntry(a[5], a[6], AclOperation.fromString(a[7]),
                AclPermissionType.fromString(a[8]));
        AclBinding binding = new AclBinding(pattern, entry);
        try (Admin admin = MirrorCheck.admin(a[1])) {
            if (add) {
                admin.createAcls(List.of(binding)).all().get(30, TimeUnit.SECONDS);
            } else {
                Collection<AclBinding> gone = admin.deleteAcls(List.of(binding.toFilter())).all().get(30, TimeUnit.SECONDS);
                if (gone.size() != 1) throw new IllegalStateException("deleteAcls " + binding + " removed " + gone);
            }
        }
        return Map.of(add ? "added" : "deleted", binding.toString());
    }

    static Object quotaSet(String[] a) throws Exception {
        ClientQuotaEntity entity = new ClientQuotaEntity(Map.of(a[2], a[3]));
        Double value = a[5].equals("-") ? null : Double.valueOf(a[5]);
        try (Admin admin = MirrorCheck.admin(a[1])) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
                    List.of(new ClientQuotaAlteration.Op(a[4], value))))).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of("quota", a[2] + "=" + a[3] + " " + a[4] + "=" + a[5]);
    }

    static Object configSet(String[] a) throws Exception {
        String[] kv = a[4].split("=", 2);
        ConfigResource res = new ConfigResource(ConfigResource.Type.valueOf(a[2]), a[3]);
        try (Admin admin = MirrorCheck.admin(a[1])) {
            admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(kv[0], kv[1]),
                    AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of("altered", a[2] + " " + a[3] + " " + a[4]);
    }

    static Map<String, List<String>> dynamicConfigs(Admin admin, ConfigResource res, ConfigEntry.ConfigSource only)
            throws Exception {
        Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
        Map<String, List<String>> out = new TreeMap<>();
        for (ConfigEntry e : cfg.entries()) {
            if (e.source() == only) out.put(e.name(), List.of(String.valueOf(e.value()), e.source().toString()));
        }
        return out;
    }

    static Object kafkaState(String[] a) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = MirrorCheck.admin(a[1])) {
            Map<String, Object> users = new TreeMap<>();
            DescribeUserScramCredentialsResult r = admin.describeUserScramCredentials();
            for (Map.Entry<String, UserScramCredentialsDescription> e : r.all().get(30, TimeUnit.SECONDS).entrySet()) {
                List<String> creds = new ArrayList<>();
                for (ScramCredentialInfo i : e.getValue().credentialInfos()) {
                    creds.add(i.mechanism().mechanismName() + "/" + i.iterations());
                }
                creds.sort(null);
                users.put(e.getKey(), creds);
            }
            out.put("scram", users);
            List<String> acls = new ArrayList<>();
            for (AclBinding b : admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)) {
                ResourcePattern p = b.pattern();
                AccessControlEntry e = b.entry();
                acls.add(String.join(" ", p.resourceType().toString(), p.patternType().toString(), p.name(),
                        e.principal(), e.host(), e.operation().toString(), e.permissionType().toString()));
            }
            acls.sort(null);
            out.put("acls", acls);
            Map<String, Object> quotas = new TreeMap<>();
            admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS).forEach((ent, q) ->
                    quotas.put(new TreeMap<>(ent.entries()).toString(), new TreeMap<>(q)));
            out.put("quotas", quotas);
            out.put("cluster_broker_configs", dynamicConfigs(admin, new ConfigResource(ConfigResource.Type.BROKER, ""),
                    ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
            Map<String, Object> groups = new TreeMap<>();
            for (String g : list(a[2])) {
                groups.put(g, dynamicConfigs(admin, new ConfigResource(ConfigResource.Type.GROUP, g),
                        ConfigEntry.ConfigSource.DYNAMIC_GROUP_CONFIG));
            }
            out.put("group_configs", groups);
        }
        return out;
    }

    static Object deleteTopic(String[] a) throws Exception {
        try (Admin admin = MirrorCheck.admin(a[1])) {
            admin.deleteTopics(List.of(a[2])).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of("deleted", a[2]);
    }

    static Object alterConfig(String[] a) throws Exception {
        String[] kv = a[3].split("=", 2);
        ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, a[2]);
        try (Admin admin = MirrorCheck.admin(a[1])) {
            admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry(kv[0], kv[1]),
                    AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        return Map.of("altered", a[3]);
    }

    static Properties consumerProps(String bootstrap, String group, String isolation) {
        Properties p = MirrorCheck.consumerProps(bootstrap, group);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        return p;
    }

    static Object dump(String bootstrap, String topic, String isolation) {
        List<Map<String, Object>> records = new ArrayList<>();
        Map<String, Long> start = new TreeMap<>(), endOut = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps(bootstrap, null, isolation))) {
            List<TopicPartition> tps = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30)).forEach(pi -> tps.add(new TopicPartition(topic, pi.partition())));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            c.beginningOffsets(tps, Duration.ofSeconds(30)).forEach((tp, o) -> start.put(Integer.toString(tp.partition()), o));
            end.forEach((tp, o) -> endOut.put(Integer.toString(tp.partition()), o));
            long deadline = System.currentTimeMillis() + 60000;
            boolean done = false;
            while (System.currentTimeMillis() < deadline) {
                done = true;
                for (TopicPartition tp : tps) done &= c.position(tp, Duration.ofSeconds(30)) >= end.get(tp);
                if (done) break;
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) records.add(record(r));
                }
            }
            if (!done) throw new IllegalStateException("dump " + topic + ": end offsets " + end + " not reached in 60 s");
        }
        records.sort((x, y) -> {
            int d = Integer.compare((int) x.get("partition"), (int) y.get("partition"));
            return d != 0 ? d : Long.compare((long) x.get("offset"), (long) y.get("offset"));
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("records", records);
        out.put("start", start);
        out.put("end", endOut);
        return out;
    }

    static Object consume(String[] a) {
        String bootstrap = a[1], group = a[2], protocol = a[3], topic = a[4];
        int count = Integer.parseInt(a[5]);
        long idleMs = Long.parseLong(a[6]), timeoutMs = Long.parseLong(a[7]);
        Properties props = consumerProps(bootstrap, group, "read_committed");
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        List<Map<String, Object>> taken = new ArrayList<>();
        List<Map<String, Object>> extra = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props)) {
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

    static Object offsetsForTimes(String[] a) throws Exception {
        String topic = a[2];
        Map<String, Object> out = new TreeMap<>();
        try (Admin admin = MirrorCheck.admin(a[1])) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            List<String> specs = new ArrayList<>(Arrays.asList(a[3].split(",")));
            specs.add("max");
            for (String s : specs) {
                Map<TopicPartition, OffsetSpec> req = new HashMap<>();
                for (TopicPartitionInfo pi : d.partitions()) {
                    req.put(new TopicPartition(topic, pi.partition()),
                            s.equals("max") ? OffsetSpec.maxTimestamp() : OffsetSpec.forTimestamp(Long.parseLong(s)));
                }
                Map<String, List<Long>> per = new TreeMap<>();
                admin.listOffsets(req).all().get(30, TimeUnit.SECONDS).forEach((tp, r) ->
                        per.put(Integer.toString(tp.partition()), List.of(r.offset(), r.timestamp())));
                out.put(s, per);
            }
        }
        return out;
    }

    static List<String> list(String s) {
        return s.equals("-") ? List.of() : Arrays.asList(s.split(","));
    }

    static Object state(String[] a) throws Exception {
        List<String> topics = list(a[2]), groups = list(a[3]), txnIds = list(a[4]);
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = MirrorCheck.admin(a[1])) {
            List<String> names = new ArrayList<>(admin.listTopics(new ListTopicsOptions().listInternal(true))
                    .names().get(30, TimeUnit.SECONDS));
            names.sort(null);
            out.put("all_topics", names);
            DescribeClusterResult dc = admin.describeCluster();
            Map<String, Object> cluster = new LinkedHashMap<>();
            cluster.put("id", dc.clusterId().get(30, TimeUnit.SECONDS));
            cluster.put("controller", dc.controller().get(30, TimeUnit.SECONDS).id());
            List<String> nodes = new ArrayList<>();
            for (Node n : dc.nodes().get(30, TimeUnit.SECONDS)) nodes.add(n.id() + "@" + n.host() + ":" + n.port());
            cluster.put("nodes", nodes);
            // Dynamic broker configs: this node's and the cluster-wide defaults.
            cluster.put("broker_configs", dynamicConfigs(admin, new ConfigResource(ConfigResource.Type.BROKER, "1"),
                    ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG));
            cluster.put("default_broker_configs", dynamicConfigs(admin, new ConfigResource(ConfigResource.Type.BROKER, ""),
                    ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
            Map<String, Object> finalized = new TreeMap<>();
            admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS).finalizedFeatures()
                    .forEach((f, r) -> finalized.put(f, List.of(r.minVersionLevel(), r.maxVersionLevel())));
            cluster.put("finalized_features", finalized);
            out.put("cluster", cluster);
            Map<String, Object> tout = new TreeMap<>();
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                Map<String, Object> t = new LinkedHashMap<>();
                try {
                    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
                    t.put("id", d.topicId().toString());
                    t.put("partitions", d.partitions().size());
                    List<Object> leaders = new ArrayList<>();
                    for (TopicPartitionInfo pi : d.partitions()) {
                        leaders.add(List.of(pi.partition(), pi.leader() == null ? -1 : pi.leader().id(),
                                pi.isr().stream().map(n -> n.id()).toList()));
                        partitions.add(new TopicPartition(topic, pi.partition()));
                    }
                    t.put("leaders", leaders);
                    ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                    Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
                    Map<String, List<String>> configs = new TreeMap<>();
                    for (ConfigEntry e : cfg.entries()) {
                        if (e.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG) continue;
                        configs.put(e.name(), List.of(String.valueOf(e.value()), e.source().toString()));
                    }
                    t.put("configs", configs);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
                    t.put("partitions", -1);
                }
                tout.put(topic, t);
            }
            out.put("topics", tout);

            Map<String, Object> gout = new TreeMap<>();
            for (String g : groups) {
                Map<String, Object> m = new LinkedHashMap<>();
                try {
                    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(g)).all().get(30, TimeUnit.SECONDS).get(g);
                    m.put("type", String.valueOf(d.type()));
                    m.put("state", String.valueOf(d.groupState()));
                    m.put("members", d.members().size());
                    m.put("groupEpoch", d.groupEpoch().orElse(null));
                    m.put("targetAssignmentEpoch", d.targetAssignmentEpoch().orElse(null));
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
                    m.put("state", "NOT_FOUND");
                }
                Map<TopicPartition, OffsetAndMetadata> offs = admin.listConsumerGroupOffsets(g)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                Map<String, Object> om = new TreeMap<>();
                offs.forEach((tp, o) -> {
                    if (o != null) om.put(tp.topic() + "-" + tp.partition(),
                            List.of(o.offset(), o.leaderEpoch().orElse(-1), o.metadata()));
                });
                m.put("offsets", om);
                gout.put(g, m);
            }
            out.put("groups", gout);

            Map<String, Object> pout = new TreeMap<>();
            if (!partitions.isEmpty()) {
                Map<TopicPartition, PartitionProducerState> ps = admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS);
                ps.forEach((tp, st) -> {
                    List<Map<String, Object>> l = new ArrayList<>();
                    for (ProducerState s : st.activeProducers()) {
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("producerId", s.producerId());
                        m.put("producerEpoch", s.producerEpoch());
                        m.put("lastSequence", s.lastSequence());
                        m.put("lastTimestamp", s.lastTimestamp());
                        m.put("txnStartOffset", s.currentTransactionStartOffset().isPresent()
                                ? s.currentTransactionStartOffset().getAsLong() : null);
                        m.put("coordinatorEpoch", s.coordinatorEpoch().isPresent() ? s.coordinatorEpoch().getAsInt() : null);
                        l.add(m);
                    }
                    l.sort((x, y) -> Long.compare((long) x.get("producerId"), (long) y.get("producerId")));
                    pout.put(tp.topic() + "-" + tp.partition(), l);
                });
            }
            out.put("producers", pout);

            Map<String, Object> lt = new TreeMap<>();
            Collection<TransactionListing> listings = admin.listTransactions().all().get(30, TimeUnit.SECONDS);
            for (TransactionListing l : listings) {
                lt.put(l.transactionalId(), List.of(l.producerId(), String.valueOf(l.state())));
            }
            out.put("transaction_listing", lt);
            Map<String, Object> tx = new TreeMap<>();
            for (String id : txnIds) {
                Map<String, Object> m = new LinkedHashMap<>();
                try {
                    TransactionDescription d = admin.describeTransactions(List.of(id)).description(id).get(30, TimeUnit.SECONDS);
                    m.put("state", String.valueOf(d.state()));
                    m.put("producerId", d.producerId());
                    m.put("producerEpoch", d.producerEpoch());
                    m.put("timeoutMs", d.transactionTimeoutMs());
                    m.put("startTimeMs", d.transactionStartTimeMs().isPresent() ? d.transactionStartTimeMs().getAsLong() : null);
                    List<String> tps = new ArrayList<>();
                    for (TopicPartition tp : d.topicPartitions()) tps.add(tp.topic() + "-" + tp.partition());
                    tps.sort(null);
                    m.put("partitions", tps);
                    m.put("coordinatorId", d.coordinatorId());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TransactionalIdNotFoundException)) throw e;
                    m.put("state", "NOT_FOUND");
                }
                tx.put(id, m);
            }
            out.put("transactions", tx);
        }
        return out;
    }
}
