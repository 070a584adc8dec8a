import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * TxnProducer <bootstrap> <topic> <transactional id> <pattern> [--per-txn K] [--partitions P]
 *             [--prefix S] [--prop key=value]...
 *
 * One transactional (so idempotent) KafkaProducer for the real-client tests
 * (tests/clients/client_tests.py). After initTransactions it runs one transaction per character
 * of <pattern>: each sends K records (default 6), record j of transaction t with the value
 * "S-tT-rJ" (S defaults to the transactional id) and no key to partition j % P (P defaults
 * to 3), flushes, and then
 *
 *   c   commits it;
 *   a   aborts it (after the flush: its records are in the log, aborted);
 *   o   leaves it open (only as the pattern's last character): prints "open T" and waits for
 *       a line on stdin (or its end), then calls commitTransaction, whose outcome it prints.
 *       A producer fenced meanwhile (another initTransactions of the same transactional id,
 *       or the coordinator's abort of the transaction when transaction.timeout.ms ran out)
 *       prints its commit-failed line.
 *
 * It prints one line per event on stdout, flushed at once:
 *
 *   ready                              initTransactions returned
 *   record <txn> <partition> <offset> <value>   a record of the transaction, acknowledged
 *   committed <txn> | aborted <txn> | open <txn>
 *   commit-failed <txn> <exception class>: <message> [<- <cause class>: <message>]...
 *   failed <txn> <exception class>: <message> [<- cause...]   any other error (then it stops)
 *   closed
 *
 * --prop passes producer settings (transaction.timeout.ms, ...). The exit code is 0 unless an
 * argument is wrong; the test judges the printed lines and the records.
 */
public class TxnProducer {
    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    static synchronized void emit(String line) {
        OUT.println(line);
        OUT.flush();
    }

    /** "Class: message <- CauseClass: message ..." of an exception and its causes. */
    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (b.length() > 0) b.append(" <- ");
            String msg = String.valueOf(t.getMessage()).replace('\n', ' ');
            b.append(t.getClass().getName()).append(": ").append(msg);
            if (t.getCause() == t) break;
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: TxnProducer <bootstrap> <topic> <transactional id> <pattern> "
                    + "[--per-txn K] [--partitions P] [--prefix S] [--prop key=value]...");
            System.exit(2);
        }
        String topic = args[1];
        String txnId = args[2];
        String pattern = args[3];
        int perTxn = 6;
        int partitions = 3;
        String prefix = txnId;
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        for (int i = 4; i < args.length; i++) {
            switch (args[i]) {
                case "--per-txn": perTxn = Integer.parseInt(args[++i]); break;
                case "--partitions": partitions = Integer.parseInt(args[++i]); break;
                case "--prefix": prefix = args[++i]; break;
                case "--prop": {
                    String kv = args[++i];
                    int eq = kv.indexOf('=');
                    props.put(kv.substring(0, eq), kv.substring(eq + 1));
                    break;
                }
                default:
                    System.err.println("TxnProducer: unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        for (int t = 0; t < pattern.length(); t++) {
            char c = pattern.charAt(t);
            if ("cao".indexOf(c) < 0 || (c == 'o' && t != pattern.length() - 1)) {
                System.err.println("TxnProducer: bad pattern " + pattern);
                System.exit(2);
            }
        }

        KafkaProducer<String, String> producer = new KafkaProducer<>(props);
        int t = 0;
        try {
            producer.initTransactions();
            emit("ready");
            for (; t < pattern.length(); t++) {
                char what = pattern.charAt(t);
                producer.beginTransaction();
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                List<String> values = new ArrayList<>();
                for (int j = 0; j < perTxn; j++) {
                    String value = prefix + "-t" + t + "-r" + j;
                    values.add(value);
                    sent.add(producer.send(new ProducerRecord<>(topic, j % partitions, null, value)));
                }
                producer.flush();
                for (int j = 0; j < perTxn; j++) {
                    RecordMetadata md = sent.get(j).get();
                    emit("record " + t + " " + md.partition() + " " + md.offset() + " "
                            + values.get(j));
                }
                if (what == 'c') {
                    producer.commitTransaction();
                    emit("committed " + t);
                } else if (what == 'a') {
                    producer.abortTransaction();
                    emit("aborted " + t);
                } else {
                    emit("open " + t);
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        r.readLine();
                    } catch (Exception e) {
                        // EOF or a broken pipe: commit all the same.
                    }
                    try {
                        producer.commitTransaction();
                        emit("committed " + t);
                    } catch (Exception e) {
                        emit("commit-failed " + t + " " + describe(e));
                    }
                }
            }
        } catch (Exception e) {
            emit("failed " + t + " " + describe(e));
        }
        try {
            producer.close(Duration.ofSeconds(10));
        } catch (Exception e) {
            emit("close-failed " + describe(e));
        }
        emit("closed");
    }
}
