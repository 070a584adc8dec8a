// The controller mutation quota (KIP-599) as CreateTopics, CreatePartitions and DeleteTopics
// meet it, written with Kafka 4.4.0's message classes (RawRequest) to one broker, then Kafka's
// Admin client against the same quota. Prints one line per answer (error codes, messages,
// whether throttle_time_ms is set), so that seglog's and Kafka's can be compared.
//
// The client id "mut" gets controller_mutation_rate=2: a bucket of 11 x 2 = 22 partitions,
// refilled at 2 a second. Every step runs well inside the debt the earlier ones leave.
//
//   MutationQuotaRequests <host:port>
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

public final class MutationQuotaRequests {
    private MutationQuotaRequests() {}

    static String throttled(int ms) {
        return ms > 0 ? "throttled" : "not throttled";
    }

    static void create(String hp, String step, String client, short version, boolean validateOnly,
                       Object... topics) throws Exception {
        CreateTopicsRequestData req = new CreateTopicsRequestData().setTimeoutMs(30000)
                .setValidateOnly(validateOnly);
        for (int i = 0; i < topics.length; i += 2) {
            req.topics().add(new CreateTopicsRequestData.CreatableTopic().setName((String) topics[i])
                    .setNumPartitions((Integer) topics[i + 1]).setReplicationFactor((short) -1));
        }
        CreateTopicsResponse r = (CreateTopicsResponse) RawRequest.send(hp, ApiKeys.CREATE_TOPICS,
                version, req, client, 30000);
        String results = r.data().topics().stream()
                .map(t -> t.name() + "=" + t.errorCode() + " " + t.errorMessage() + " partitions="
                        + t.numPartitions())
                .sorted().collect(Collectors.joining("; "));
        System.out.println(step + ": CreateTopics v" + version + " " + client + ": " + results + "; "
                + throttled(r.data().throttleTimeMs()));
    }

    static void grow(String hp, String step, short version, String topic, int count)
            throws Exception {
        CreatePartitionsRequestData req = new CreatePartitionsRequestData().setTimeoutMs(30000);
        req.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(topic)
                .setCount(count).setAssignments(null));
        CreatePartitionsResponse r = (CreatePartitionsResponse) RawRequest.send(hp,
                ApiKeys.CREATE_PARTITIONS, version, req, "mut", 30000);
        String results = r.data().results().stream()
                .map(t -> t.name() + "=" + t.errorCode() + " " + t.errorMessage())
                .collect(Collectors.joining("; "));
        System.out.println(step + ": CreatePartitions v" + version + ": " + results + "; "
                + throttled(r.data().throttleTimeMs()));
    }

    static void delete(String hp, String step, short version, String topic) throws Exception {
        DeleteTopicsRequestData req = new DeleteTopicsRequestData().setTimeoutMs(30000)
                .setTopicNames(List.of(topic));
        DeleteTopicsResponse r = (DeleteTopicsResponse) RawRequest.send(hp, ApiKeys.DELETE_TOPICS,
                version, req, "mut", 30000);
        String results = r.data().responses().stream()
                .map(t -> t.name() + "=" + t.errorCode() + " " + t.errorMessage())
                .collect(Collectors.joining("; "));
        System.out.println(step + ": DeleteTopics v" + version + ": " + results + "; "
                + throttled(r.data().throttleTimeMs()));
    }

    public static void main(String[] args) throws Exception {
        String hp = args[0];
        AlterClientQuotasRequestData q = new AlterClientQuotasRequestData();
        AlterClientQuotasRequestData.EntryData e = new AlterClientQuotasRequestData.EntryData();
        e.entity().add(new AlterClientQuotasRequestData.EntityData().setEntityType("client-id")
                .setEntityName("mut"));
        e.ops().add(new AlterClientQuotasRequestData.OpData().setKey("controller_mutation_rate")
                .setValue(2));
        q.entries().add(e);
        AlterClientQuotasResponse a = (AlterClientQuotasResponse) RawRequest.send(hp,
                ApiKeys.ALTER_CLIENT_QUOTAS, (short) 1, q, "setup", 30000);
        System.out.println("quota: " + a.data().entries().get(0).errorCode());
        Thread.sleep(1000);  // Kafka's brokers apply quotas as the metadata reaches them

        create(hp, "1", "mut", (short) 7, false, "a", 20);
        create(hp, "2", "mut", (short) 7, false, "b", 30, "c", 1);
        create(hp, "3", "mut", (short) 7, true, "d", 1);
        create(hp, "4", "mut", (short) 5, false, "e", 1);
        grow(hp, "5", (short) 3, "a", 21);
        grow(hp, "6", (short) 2, "a", 21);
        delete(hp, "7", (short) 5, "a");
        delete(hp, "8", (short) 4, "a");
        create(hp, "9", "free", (short) 7, false, "f", 50);

        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, hp);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "mut");
        try (Admin admin = Admin.create(p)) {
            try {
                admin.createTopics(List.of(new NewTopic("g", 1, (short) 1)),
                        new CreateTopicsOptions().retryOnQuotaViolation(false)).all().get();
                System.out.println("10: Admin createTopics g: created");
            } catch (ExecutionException x) {
                String extra = x.getCause() instanceof ThrottlingQuotaExceededException
                        ? " " + throttled(((ThrottlingQuotaExceededException) x.getCause()).throttleTimeMs())
                        : "";
                System.out.println("10: Admin createTopics g: " + x.getCause().getClass().getSimpleName()
                        + ": " + x.getCause().getMessage() + extra);
            }
            List<String> names = admin.listTopics().names().get().stream().sorted()
                    .collect(Collectors.toList());
            System.out.println("topics: " + names);
            admin.describeTopics(names).allTopicNames().get().values().stream()
                    .map(d -> d.name() + ":" + d.partitions().size()).sorted()
                    .forEach(s -> System.out.println("partitions " + s));
        }
    }
}
