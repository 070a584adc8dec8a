import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * ShareMember <bootstrap> <group> <topic> <name> <seconds> [mode]
 *
 * One KafkaShareConsumer (KIP-932) in share group <group> with explicit acknowledgement, for
 * the real-client share tests (tests/clients/share_cases.py). In mode "normal" (the default)
 * each record is acknowledged by its value: "reject-*" REJECT; "release-*" RELEASE on its first
 * delivery, ACCEPT after; "poison-*" RELEASE on every delivery; anything else ACCEPT.
 * Acknowledgements are committed (commitSync) after every poll. Mode "hang" takes the first
 * poll that returns records and then holds them, acquired and unacknowledged, without polling
 * again. Mode "partial" accepts the "accept-*" records of that first poll, commits those
 * acknowledgements, and then holds the others the same way. It prints, flushed at once:
 *
 *   polling                                   after the first poll returned
 *   ack <name> <offset> <value> <type> <delivery count>   every record, with what it was given
 *   got <name> <offset> <value> <delivery count>          a record held unacknowledged
 *   committed <n>                             after each commitSync of n acknowledgements
 *   holding                                   once "hang" or "partial" holds its records
 *   error <message>                           a poll or commit that failed
 *
 * It stops at <seconds> or when its stdin closes or has a line.
 */
public class ShareMember {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String group = args[1];
    String topic = args[2];
    String name = args[3];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[4]) * 1000L;
    String mode = args.length > 5 ? args[5] : "normal";
    boolean holds = !mode.equals("normal");
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", group);
    props.put("client.id", name);
    props.put("share.acknowledgement.mode", "explicit");
    props.put("key.deserializer", StringDeserializer.class.getName());
    props.put("value.deserializer", StringDeserializer.class.getName());
    AtomicBoolean stop = new AtomicBoolean(false);
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
      Thread stdin = new Thread(() -> {
        try (BufferedReader r =
                 new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
          r.readLine();
        } catch (Exception e) {
          // stop either way
        }
        stop.set(true);
        consumer.wakeup();
      });
      stdin.setDaemon(true);
      stdin.start();
      consumer.subscribe(List.of(topic));
      boolean first = true;
      while (!stop.get() && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(500));
        } catch (WakeupException e) {
          break;
        } catch (Exception e) {
          System.out.println("error poll " + e);
          System.out.flush();
          continue;
        }
        if (first) {
          System.out.println("polling");
          System.out.flush();
          first = false;
        }
        int n = 0;
        for (ConsumerRecord<String, String> rec : records) {
          int count = rec.deliveryCount().map(Short::intValue).orElse(-1);
          String value = rec.value();
          if (mode.equals("hang") || (mode.equals("partial") && !value.startsWith("accept-"))) {
            System.out.println("got " + name + " " + rec.offset() + " " + value + " " + count);
            continue;
          }
          AcknowledgeType type = AcknowledgeType.ACCEPT;
          if (value.startsWith("reject-")) {
            type = AcknowledgeType.REJECT;
          } else if (value.startsWith("release-") && count == 1) {
            type = AcknowledgeType.RELEASE;
          } else if (value.startsWith("poison-")) {
            type = AcknowledgeType.RELEASE;
          }
          consumer.acknowledge(rec, type);
          System.out.println("ack " + name + " " + rec.offset() + " " + value + " " + type + " "
              + count);
          n++;
        }
        System.out.flush();
        if (n > 0) {
          try {
            consumer.commitSync(Duration.ofSeconds(10));
            System.out.println("committed " + n);
          } catch (WakeupException e) {
            break;
          } catch (Exception e) {
            System.out.println("error commit " + e);
          }
          System.out.flush();
        }
        if (holds && !records.isEmpty()) {
          System.out.println("holding");
          System.out.flush();
          while (!stop.get() && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
          }
        }
      }
    }
    System.out.println("closed");
    System.out.flush();
  }
}
