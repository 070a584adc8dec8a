import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * WordCountEos <bootstrap> <application id> <input> <output> <state dir> [--prop key=value]...
 *
 * A Kafka Streams word count with processing.guarantee=exactly_once_v2, for the real-client
 * tests (tests/clients/client_tests.py, case streams_exactly_once_java): the values of <input>
 * are lines of words separated by spaces; every word is counted (a repartition topic by word,
 * an in-memory store backed by its changelog topic), and every new count goes to <output> as
 * (word, count) with a String key and a Long value (8 bytes, big-endian). The record cache is
 * off, so each count of each word is sent once; read_committed, the counts of a word in
 * <output> rise by one at a time up to its total, whatever failures the application and the
 * broker went through.
 *
 * It runs until stdin reaches EOF, then closes the application. Lines on stdout:
 *
 *   state <old> <new>                    every state change of the application
 *   error <exception class>: <message> [<- cause...]   an exception that killed a stream
 *                                        thread (which is replaced)
 *   closed <true|false>                  KafkaStreams.close returned (false: timed out)
 *
 * --prop passes Streams settings (commit.interval.ms, producer./consumer. prefixed ones...).
 */
public class WordCountEos {
    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    static synchronized void emit(String line) {
        OUT.println(line);
        OUT.flush();
    }

    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (b.length() > 0) b.append(" <- ");
            b.append(t.getClass().getName()).append(": ")
                    .append(String.valueOf(t.getMessage()).replace('\n', ' '));
            if (t.getCause() == t) break;
        }
        return b.toString();
    }

    public static void main(String[] args) {
        if (args.length < 5) {
            System.err.println("usage: WordCountEos <bootstrap> <application id> <input> <output> "
                    + "<state dir> [--prop key=value]...");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        for (int i = 5; i < args.length; i++) {
            if (args[i].equals("--prop")) {
                String kv = args[++i];
                int eq = kv.indexOf('=');
                props.put(kv.substring(0, eq), kv.substring(eq + 1));
            } else {
                System.err.println("WordCountEos: unknown argument " + args[i]);
                System.exit(2);
            }
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> {
                    List<String> words = new ArrayList<>();
                    for (String w : line.split(" ")) {
                        if (!w.isEmpty()) words.add(w);
                    }
                    return words;
                })
                .groupBy((key, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts"))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setStateListener((newState, oldState) -> emit("state " + oldState + " " + newState));
        streams.setUncaughtExceptionHandler(e -> {
            emit("error " + describe(e));
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (r.readLine() != null) { }
        } catch (Exception e) {
            // EOF or a broken pipe: close.
        }
        boolean closed = streams.close(Duration.ofSeconds(30));
        emit("closed " + closed);
        System.exit(0);
    }
}
