import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The clients of interop/kafka/move/group_takeover_check.py, one run per command:
 *
 *   produce <bootstrap> <topic> <partitions> <from> <to>
 *       records i = from..to-1, value "<kind>-<i>" (kind rej if i % 11 == 5, else rel if
 *       i % 7 == 3, else acc), to partition i % partitions, one synchronous send each; prints
 *       "produced <i> <partition> <offset> <value>".
 *   share <bootstrap> <group> <topic> <fresh> <upto> <seconds> <expected>
 *       one KafkaShareConsumer (explicit acknowledgement) in share group <group>; each record
 *       of index i (from its value) is acknowledged: RELEASE if i >= upto, else REJECT for rej,
 *       RELEASE for rel with i >= fresh (a record produced in this phase), else ACCEPT; every
 *       poll's acknowledgements are committed (commitSync). It stops once it has been given
 *       every partition:offset of <expected> ("-" for none: then after one poll that returned
 *       nothing) or at <seconds>. Prints "ack <partition> <offset> <value> <type> <delivery
 *       count>" per record, then "done" or "timeout".
 *   lines <bootstrap> <topic>
 *       produces every stdin line as a value (no key); prints "produced <n>".
 *   counts <bootstrap> <topic>
 *       reads the whole topic read_committed (String keys, Long values) and prints
 *       "count <key> <last value>" per key, then "records <n>".
 *   streams-group <bootstrap> <group>
 *       the admin client's DescribeStreamsGroups (one "describe <description>" line, the
 *       subtopologies and epochs among it) and ListStreamsGroupOffsets ("offset <topic>
 *       <partition> <offset> <leader epoch> <metadata>" per partition, sorted).
 */
public class GroupTakeoverClient {
  static String kind(int i) {
    if (i % 11 == 5) return "rej";
    if (i % 7 == 3) return "rel";
    return "acc";
  }

  static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    return p;
  }

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "produce" -> produce(args);
      case "share" -> share(args);
      case "lines" -> lines(args);
      case "counts" -> counts(args);
      case "streams-group" -> streamsGroup(args);
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  static void produce(String[] a) throws Exception {
    int partitions = Integer.parseInt(a[3]);
    int from = Integer.parseInt(a[4]);
    int to = Integer.parseInt(a[5]);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(a[1]))) {
      for (int i = from; i < to; i++) {
        String value = kind(i) + "-" + i;
        RecordMetadata m =
            producer.send(new ProducerRecord<>(a[2], i % partitions, null, value)).get();
        System.out.println("produced " + i + " " + m.partition() + " " + m.offset() + " " + value);
      }
    }
  }

  static void share(String[] a) {
    String group = a[2];
    String topic = a[3];
    int fresh = Integer.parseInt(a[4]);
    int upto = Integer.parseInt(a[5]);
    long deadline = System.currentTimeMillis() + Long.parseLong(a[6]) * 1000L;
    Set<String> expected = new HashSet<>();
    if (!a[7].equals("-")) {
      for (String s : a[7].split(",")) expected.add(s);
    }
    Properties props = new Properties();
    props.put("bootstrap.servers", a[1]);
    props.put("group.id", group);
    props.put("client.id", "takeover-share");
    props.put("share.acknowledgement.mode", "explicit");
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    boolean done = false;
    int emptyPolls = 0;
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      while (!done && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
        int n = 0;
        for (ConsumerRecord<String, String> rec : records) {
          String value = rec.value();
          int i = Integer.parseInt(value.substring(value.indexOf('-') + 1));
          AcknowledgeType type;
          if (i >= upto) {
            type = AcknowledgeType.RELEASE;
          } else if (value.startsWith("rej-")) {
            type = AcknowledgeType.REJECT;
          } else if (value.startsWith("rel-") && i >= fresh) {
            type = AcknowledgeType.RELEASE;
          } else {
            type = AcknowledgeType.ACCEPT;
          }
          consumer.acknowledge(rec, type);
          int count = rec.deliveryCount().map(Short::intValue).orElse(-1);
          System.out.println("ack " + rec.partition() + " " + rec.offset() + " " + value + " "
              + type.name() + " " + count);
          expected.remove(rec.partition() + ":" + rec.offset());
          n++;
        }
        if (n > 0) {
          consumer.commitSync(Duration.ofSeconds(30));
          System.out.println("committed " + n);
        } else {
          emptyPolls++;
        }
        System.out.flush();
        // With nothing expected: stop after an empty poll that followed the assignment (a few
        // polls of 500 ms: the member joins, the share partitions are initialized).
        done = expected.isEmpty() && (!a[7].equals("-") || emptyPolls >= 12);
      }
    }
    System.out.println(done ? "done" : "timeout");
  }

  static void lines(String[] a) throws Exception {
    int n = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(a[1]));
         BufferedReader r = new BufferedReader(
             new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        producer.send(new ProducerRecord<>(a[2], null, line)).get();
        n++;
      }
    }
    System.out.println("produced " + n);
  }

  static void counts(String[] a) {
    Properties props = new Properties();
    props.put("bootstrap.servers", a[1]);
    props.put("isolation.level", "read_committed");
    props.put("enable.auto.commit", "false");
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", LongDeserializer.class.getName());
    Map<String, Long> last = new TreeMap<>();
    int n = 0;
    try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(a[2], Duration.ofSeconds(30))) {
        tps.add(new TopicPartition(a[2], p.partition()));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.currentTimeMillis() + 60000;
      while (System.currentTimeMillis() < deadline) {
        boolean all = true;
        for (TopicPartition tp : tps) {
          if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) all = false;
        }
        if (all) break;
        for (ConsumerRecord<String, Long> rec : consumer.poll(Duration.ofMillis(500))) {
          last.put(rec.key(), rec.value());
          n++;
        }
      }
    }
    for (Map.Entry<String, Long> e : last.entrySet()) {
      System.out.println("count " + e.getKey() + " " + e.getValue());
    }
    System.out.println("records " + n);
  }

  static void streamsGroup(String[] a) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", a[1]);
    try (Admin admin = Admin.create(props)) {
      StreamsGroupDescription d =
          admin.describeStreamsGroups(List.of(a[2])).describedGroups().get(a[2]).get();
      System.out.println("describe " + d.toString().replace('\n', ' '));
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listStreamsGroupOffsets(Map.of(a[2], new ListStreamsGroupOffsetsSpec()))
              .partitionsToOffsetAndMetadata(a[2]).get();
      List<String> rows = new ArrayList<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
        OffsetAndMetadata m = e.getValue();
        rows.add("offset " + e.getKey().topic() + " " + e.getKey().partition() + " "
            + (m == null ? "none" : m.offset() + " " + m.leaderEpoch() + " " + m.metadata()));
      }
      rows.sort(null);
      rows.forEach(System.out::println);
    }
  }
}
