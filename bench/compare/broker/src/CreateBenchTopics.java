// bench/compare/broker's topic setup: creates topics with the same partition count on either
// broker through the Admin client (CreateTopics, replication factor 1), retrying while the
// broker is still starting, so that seglog and Kafka get identical topics.
//
//   CreateBenchTopics --bootstrap-server H:P --partitions N [--timeout-ms 60000] TOPIC...
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;

public final class CreateBenchTopics {
    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        int partitions = -1;
        long timeoutMs = 60_000;
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bootstrap-server": bootstrap = args[++i]; break;
                case "--partitions": partitions = Integer.parseInt(args[++i]); break;
                case "--timeout-ms": timeoutMs = Long.parseLong(args[++i]); break;
                default: topics.add(args[i]);
            }
        }
        if (bootstrap == null || partitions < 1 || topics.isEmpty()) {
            System.err.println("usage: CreateBenchTopics --bootstrap-server H:P --partitions N TOPIC...");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        long deadline = System.currentTimeMillis() + timeoutMs;
        try (Admin admin = Admin.create(props)) {
            List<String> pending = new ArrayList<>(topics);
            while (true) {
                List<NewTopic> want = new ArrayList<>();
                for (String t : pending) want.add(new NewTopic(t, partitions, (short) 1));
                List<String> failed = new ArrayList<>();
                Throwable last = null;
                var result = admin.createTopics(want);
                for (String t : pending) {
                    try {
                        result.values().get(t).get(30, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            failed.add(t);
                            last = e.getCause();
                        }
                    }
                }
                if (failed.isEmpty()) break;
                if (System.currentTimeMillis() > deadline) {
                    System.err.println("CreateBenchTopics: could not create " + failed + ": " + last);
                    System.exit(1);
                }
                pending = failed;
                Thread.sleep(500);
            }
            // Check what the broker reports back: every topic with the asked partition count.
            var descs = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
            for (String t : topics) {
                TopicDescription d = descs.get(t);
                if (d == null || d.partitions().size() != partitions) {
                    System.err.println("CreateBenchTopics: " + t + " has "
                            + (d == null ? "no description" : d.partitions().size() + " partitions"));
                    System.exit(1);
                }
                System.out.println(t + " " + d.partitions().size());
            }
        }
    }
}
