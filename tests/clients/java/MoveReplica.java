// Asks the broker to move one partition's replica to another of its log directories with
// Kafka's Admin client (alterReplicaLogDirs: one AlterReplicaLogDirs request), and prints
// "move started" once the broker accepted it; the move itself goes on in the broker.
//
//   MoveReplica <bootstrap> <topic> <partition> <log dir>
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartitionReplica;

public class MoveReplica {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(p)) {
            TopicPartitionReplica replica = new TopicPartitionReplica(args[1], Integer.parseInt(args[2]), 1);
            admin.alterReplicaLogDirs(Map.of(replica, args[3])).all().get();
            System.out.println("move started");
        }
    }
}
