// One KIP-848 consumer (group.protocol=consumer) subscribed by a regular expression the broker
// resolves (subscribe(SubscriptionPattern)): polls until its assignment covers every partition
// of the topics named, then prints "assigned <topic-partition,...>" and the records it read
// from the first named topic, and closes. Every change of its assignment on the way is printed
// as "assignment <topic-partition,...>". It never asks for a topic to be created (a topic named
// that does not exist yet is waited for).
//
//   RegexMember <bootstrap> <group> <pattern> <topic[,topic...]> <records expected>
//
// Exits 1 when the assignment or the records do not come within 60 s.
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class RegexMember {
    public static void main(String[] args) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> topics = Arrays.asList(args[3].split(","));
        int expected = Integer.parseInt(args[4]);
        long deadline = System.currentTimeMillis() + 60_000;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(new SubscriptionPattern(args[2]));
            int read = 0;
            boolean announced = false;
            Set<TopicPartition> last = new HashSet<>();
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.topic().equals(topics.get(0))) read++;
                }
                Set<TopicPartition> assigned = c.assignment();
                if (!assigned.equals(last)) {
                    last = new HashSet<>(assigned);
                    TreeSet<String> names = new TreeSet<>();
                    for (TopicPartition tp : assigned) names.add(tp.toString());
                    System.out.println("assignment " + String.join(",", names));
                }
                Set<String> assignedTopics = new TreeSet<>();
                for (TopicPartition tp : assigned) assignedTopics.add(tp.topic());
                boolean all = assignedTopics.containsAll(topics);
                for (String t : topics) {
                    List<PartitionInfo> info = c.partitionsFor(t);
                    int n = info == null ? 0 : info.size();
                    all &= n > 0;
                    for (int i = 0; i < n; i++) all &= assigned.contains(new TopicPartition(t, i));
                }
                if (all && !announced) {
                    TreeSet<String> names = new TreeSet<>();
                    for (TopicPartition tp : assigned) names.add(tp.toString());
                    System.out.println("assigned " + String.join(",", names));
                    announced = true;
                }
                if (announced && read >= expected) {
                    System.out.println("read " + read);
                    return;
                }
            }
            System.out.println("timed out: assigned " + c.assignment() + ", read " + read);
            System.exit(1);
        }
    }
}
