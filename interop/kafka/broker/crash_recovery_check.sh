#!/usr/bin/env bash
# Crash recovery interop: a log directory written by a real Kafka 4.4.0 broker, killed with
# SIGKILL and then damaged at its tail as a crash can leave it, must recover in seglog to exactly
# what Kafka recovers it to.
#
#   interop/kafka/broker/crash_recovery_check.sh SEGLOG_BIN
#
#   a. broker.sh start; create topic `crash` (4 partitions, segment.bytes=1048576) and produce
#      6 runs (none gzip snappy lz4 zstd none) x 1000 records to every partition with Kafka's
#      producer (about 4.9 MB and 5 segments per partition; default flush settings, so nothing
#      is fsynced but the segments Kafka's own roll flushes); broker.sh kill (SIGKILL).
#   b. damage, deterministically (fixed seed):
#        crash-0  active .log cut in the middle of its last batch (torn append);
#        crash-1  3000 random bytes appended to the active .log; recovery point 0 (no checkpoint
#                 ever written); last entries of the 2nd segment's .index/.timeindex zero-filled;
#        crash-2  8 bytes overwritten in the middle of the active segment's last batch (CRC
#                 mismatch); the active .index emptied (0 bytes);
#        crash-3  recovery point rewound to the 2nd segment; 8 bytes overwritten in a batch in
#                 the middle of the 3rd segment: recovery cuts there and drops every later segment.
#   c. cp -a the data dir to A and B; Kafka recovers A (broker.sh resume, wait until the crash
#      logs are loaded, broker.sh stop: a clean shutdown trims indexes, writes checkpoints and
#      .kafka_cleanshutdown).
#   d. seglog recovers B: SEGLOG_BIN recover --log-dir B.
#   e. every crash-N directory must hold the same .log/.index/.timeindex names with identical
#      bytes, and recovery-point-offset-checkpoint / log-start-offset-checkpoint must hold the
#      same entries for the crash topic. Other files (.snapshot, .txnindex, leader-epoch-checkpoint,
#      partition.metadata, Kafka's pending *.deleted files, seglog's .quarantine) are not compared.
#      A difference is printed with sizes, the first differing byte and DumpLogSegments of both.
#
# Exit 0 when identical, 1 on a difference or failure. KEEP_WORK=1 keeps the temp workdir (it is
# always kept on failure). CRASH_CHECK_KAFKA_ONLY=1 stops after Kafka's recovery of A (to develop
# the Kafka half without seglog). Ports: KAFKA_BROKER_PORT / KAFKA_CONTROLLER_PORT as broker.sh.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
BROKER="$SCRIPT_DIR/broker.sh"
ORACLE="$SCRIPT_DIR/../oracle.sh"
PORT="${KAFKA_BROKER_PORT:-19092}"
TOPIC=crash
PARTS=4
SEED=4242

log() { echo "crash_recovery_check: [$((SECONDS))s] $*"; }
die() { echo "crash_recovery_check: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || { echo "usage: crash_recovery_check.sh SEGLOG_BIN" >&2; exit 2; }
SEGLOG="$1"
if [[ "${CRASH_CHECK_KAFKA_ONLY:-0}" != 1 ]]; then
    [[ -x "$SEGLOG" ]] || die "seglog binary '$SEGLOG' not found or not executable"
    SEGLOG="$(cd -- "$(dirname -- "$SEGLOG")" && pwd -P)/$(basename -- "$SEGLOG")"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/seglog-crash-recovery.XXXXXX")"
cleanup() {
    local rc=$?
    # Never leave a broker behind (a no-op when none is running).
    "$BROKER" kill "$WORK/kafka" >/dev/null 2>&1 || true
    "$BROKER" kill "$WORK/A" >/dev/null 2>&1 || true
    if [[ "${KEEP_WORK:-0}" == 1 || $rc -ne 0 ]]; then
        echo "crash_recovery_check: workdir kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ the Java helper (CrashTool)
CP="$("$BROKER" classpath)"
mkdir -p "$WORK/tool"
cat >"$WORK/tool/CrashTool.java" <<'JAVA'
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Helper of interop/kafka/broker/crash_recovery_check.sh (written out and compiled by it).
 *
 *   CrashTool produce <bootstrap> <topic> <partitions>
 *     creates <topic> (segment.bytes=1048576, retention off, CreateTime) and sends, per codec run
 *     (none gzip snappy lz4 zstd none), RUN records to every partition with KafkaProducer; keys
 *     "<topic>-<p>/<codec>/<n>", values "p=<p> n=<n> codec=<c>|" + fixed-seed base64 text.
 *     Batch boundaries come from flush() (long linger), cycling through a fixed schedule.
 *   CrashTool damage <log dir> <topic> <seed>
 *     damages <topic>-0..3 as a crash could (see the script), deterministically.
 */
public class CrashTool {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd", "none"};
    static final int RUN = 1000;
    static final int[] FLUSH_EVERY = {1, 3, 40, 200, 17, 600, 2, 90};
    static final long BASE_TS = 1700000000000L;
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static final Pattern LOG = Pattern.compile("^(\\d{20})\\.log$");

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("produce")) {
            produce(args[1], args[2], Integer.parseInt(args[3]));
        } else if (args.length == 4 && args[0].equals("damage")) {
            damage(Path.of(args[1]), args[2], Long.parseLong(args[3]));
        } else {
            System.err.println("usage: CrashTool produce <bootstrap> <topic> <partitions> | damage <logdir> <topic> <seed>");
            System.exit(2);
        }
    }

    // ---------------------------------------------------------------- produce

    static void produce(String bootstrap, String topic, int parts) throws Exception {
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            Map<String, String> cfg = new TreeMap<>();
            cfg.put("segment.bytes", "1048576");
            cfg.put("retention.ms", "-1");
            cfg.put("retention.bytes", "-1");
            cfg.put("message.timestamp.type", "CreateTime");
            cfg.put("compression.type", "producer");
            admin.createTopics(List.of(new NewTopic(topic, parts, (short) 1).configs(cfg))).all().get();
        }
        Random[] rnd = new Random[parts];
        for (int p = 0; p < parts; p++) rnd[p] = new Random(0xC4A54L + p);
        long[] next = new long[parts];
        int flushIdx = 0, sinceFlush = 0;
        long bytes = 0;
        for (String codec : CODECS) {
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.CLIENT_ID_CONFIG, "seglog-crash-" + codec);
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
            pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
            pp.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            List<long[]> expect = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
                producer.partitionsFor(topic);
                for (int i = 0; i < RUN; i++) {
                    for (int p = 0; p < parts; p++) {
                        long n = next[p]++;
                        Random r = rnd[p];
                        byte[] key = String.format("%s-%d/%s/%07d", topic, p, codec, n).getBytes(StandardCharsets.US_ASCII);
                        byte[] value = null;
                        if (n % 211 != 5) {
                            StringBuilder sb = new StringBuilder(String.format("p=%d n=%07d codec=%s|", p, n, codec));
                            int len = n % 389 == 17 ? 20000 + r.nextInt(20000) : 20 + r.nextInt(1500);
                            for (int j = 0; j < len; j++) sb.append(ALPHABET.charAt(r.nextInt(64)));
                            value = sb.toString().getBytes(StandardCharsets.US_ASCII);
                            bytes += value.length;
                        }
                        // Mostly increasing CreateTime, now and then one from the past.
                        long ts = BASE_TS + 10 * n - (n % 97 == 3 ? 30000 : 0);
                        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, p, ts, key, value);
                        if (n % 50 == 25) rec.headers().add(new RecordHeader("n", Long.toString(n).getBytes(StandardCharsets.US_ASCII)));
                        futures.add(producer.send(rec));
                        expect.add(new long[] {p, n});
                        if (++sinceFlush >= FLUSH_EVERY[flushIdx]) {
                            producer.flush();
                            sinceFlush = 0;
                            flushIdx = (flushIdx + 1) % FLUSH_EVERY.length;
                        }
                    }
                }
                producer.flush();
            }
            for (int k = 0; k < futures.size(); k++) {
                RecordMetadata md = futures.get(k).get();
                if (md.offset() != expect.get(k)[1])
                    throw new IllegalStateException("partition " + expect.get(k)[0] + " record " + expect.get(k)[1] + " got offset " + md.offset());
            }
            System.out.printf("produce: %s run done, %d records per partition so far%n", codec, next[0]);
        }
        System.out.printf("produce: %d partitions x %d records, %d value bytes%n", parts, next[0], bytes);
    }

    // ---------------------------------------------------------------- damage

    /** Segment base offsets of a partition directory, ascending. */
    static List<Long> bases(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(f -> {
                Matcher m = LOG.matcher(f.getFileName().toString());
                if (m.matches()) out.add(Long.parseLong(m.group(1)));
            });
        }
        out.sort(null);
        return out;
    }

    static Path file(Path dir, long base, String ext) { return dir.resolve(String.format("%020d.%s", base, ext)); }

    /** Complete batches of a .log file: {position, size incl. the 12-byte log overhead, baseOffset, lastOffset}. */
    static List<long[]> batches(Path log) throws IOException {
        List<long[]> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = ch.size(), pos = 0;
            ByteBuffer h = ByteBuffer.allocate(27);
            while (pos + 27 <= size) {
                h.clear();
                ch.read(h, pos);
                long base = h.getLong(0);
                int len = h.getInt(8);
                if (len < 14 || pos + 12 + len > size) break;
                out.add(new long[] {pos, 12L + len, base, base + h.getInt(23)});
                pos += 12L + len;
            }
        }
        return out;
    }

    static void truncate(Path f, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) { ch.truncate(size); }
    }

    /** XORs n bytes at pos with non-zero seeded bytes (so every byte really changes). */
    static void flip(Path f, long pos, int n, Random r) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(n);
            ch.read(b, pos);
            for (int i = 0; i < n; i++) b.put(i, (byte) (b.get(i) ^ (1 + r.nextInt(255))));
            b.rewind();
            ch.write(b, pos);
        }
    }

    static void zero(Path f, long pos, int n) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) { ch.write(ByteBuffer.allocate(n), pos); }
    }

    static long[] batchAround(List<long[]> bs, long pos) {
        for (long[] b : bs) if (b[0] + b[1] > pos) return b;
        return bs.get(bs.size() - 1);
    }

    static void damage(Path logDir, String topic, long seed) throws IOException {
        Random r = new Random(seed);
        Map<Integer, Long> newRecoveryPoints = new TreeMap<>();

        // crash-0: the active segment ends in the middle of its last batch (a torn append).
        {
            Path dir = logDir.resolve(topic + "-0");
            List<Long> segs = bases(dir);
            Path log = file(dir, segs.get(segs.size() - 1), "log");
            List<long[]> bs = batches(log);
            long[] last = bs.get(bs.size() - 1);
            long cut = last[0] + last[1] / 2;
            long before = Files.size(log);
            truncate(log, cut);
            System.out.printf("damage %s-0: %s cut from %d to %d bytes, inside batch %d..%d at position %d (%d bytes)%n",
                    topic, log.getFileName(), before, cut, last[2], last[3], last[0], last[1]);
            System.out.printf("expect-log-end %d %d%n", 0, last[2]);
        }
        // crash-1: random garbage after the active segment's last batch; recovery point 0 (no
        // checkpoint ever written), and the tails of the second segment's indexes zero-filled.
        {
            Path dir = logDir.resolve(topic + "-1");
            List<Long> segs = bases(dir);
            Path log = file(dir, segs.get(segs.size() - 1), "log");
            List<long[]> bs = batches(log);
            System.out.printf("expect-log-end %d %d%n", 1, bs.get(bs.size() - 1)[3] + 1);
            byte[] junk = new byte[3000];
            r.nextBytes(junk);
            long before = Files.size(log);
            Files.write(log, junk, StandardOpenOption.APPEND);
            System.out.printf("damage %s-1: %d random bytes appended to %s (was %d bytes; garbage header: length field %d)%n",
                    topic, junk.length, log.getFileName(), before, ByteBuffer.wrap(junk).getInt(8));
            if (segs.size() < 3) throw new IllegalStateException(topic + "-1 has only " + segs.size() + " segments");
            Path idx = file(dir, segs.get(1), "index"), tix = file(dir, segs.get(1), "timeindex");
            long is = Files.size(idx), ts = Files.size(tix);
            if (is < 32 || ts < 36) throw new IllegalStateException("indexes of segment " + segs.get(1) + " too small");
            zero(idx, is - 32, 32);
            zero(tix, ts - 36, 36);
            System.out.printf("damage %s-1: last 4 entries of %s and last 3 of %s zero-filled%n",
                    topic, idx.getFileName(), tix.getFileName());
            newRecoveryPoints.put(1, 0L);
        }
        // crash-2: bytes overwritten in the middle of the active segment's last batch (CRC
        // mismatch), and the active segment's offset index lost its contents (0 bytes).
        {
            Path dir = logDir.resolve(topic + "-2");
            List<Long> segs = bases(dir);
            long active = segs.get(segs.size() - 1);
            Path log = file(dir, active, "log");
            List<long[]> bs = batches(log);
            long[] last = bs.get(bs.size() - 1);
            long at = last[0] + Math.max(61, last[1] / 2);
            if (at + 8 > last[0] + last[1]) throw new IllegalStateException("last batch too small");
            flip(log, at, 8, r);
            truncate(file(dir, active, "index"), 0);
            System.out.printf("damage %s-2: 8 bytes overwritten at position %d of %s, inside batch %d..%d at %d (%d bytes); %s truncated to 0 bytes%n",
                    topic, at, log.getFileName(), last[2], last[3], last[0], last[1], file(dir, active, "index").getFileName());
            System.out.printf("expect-log-end %d %d%n", 2, last[2]);
        }
        // crash-3: recovery point rewound to the second segment's base (an older checkpoint), and a
        // CRC failure in the middle of the third segment: recovery cuts there and removes every
        // later segment, the active one included.
        {
            Path dir = logDir.resolve(topic + "-3");
            List<Long> segs = bases(dir);
            if (segs.size() < 4) throw new IllegalStateException(topic + "-3 has only " + segs.size() + " segments");
            Path log = file(dir, segs.get(2), "log");
            List<long[]> bs = batches(log);
            long[] mid = batchAround(bs, Files.size(log) / 2);
            long at = mid[0] + Math.max(61, mid[1] / 2);
            flip(log, at, 8, r);
            newRecoveryPoints.put(3, segs.get(1));
            System.out.printf("damage %s-3: 8 bytes overwritten at position %d of %s (of %d segments), inside batch %d..%d at %d (%d bytes)%n",
                    topic, at, log.getFileName(), segs.size(), mid[2], mid[3], mid[0], mid[1]);
            System.out.printf("expect-log-end %d %d%n", 3, mid[2]);
        }
        // Rewrite the recovery-point checkpoint (format: version, count, "topic partition offset").
        Path cp = logDir.resolve("recovery-point-offset-checkpoint");
        List<String> lines = Files.exists(cp) ? Files.readAllLines(cp) : List.of("0", "0");
        List<String> entries = new ArrayList<>();
        Map<Integer, Long> seen = new TreeMap<>();
        for (String l : lines.subList(2, lines.size())) {
            String[] f = l.split(" ");
            if (f.length == 3 && f[0].equals(topic)) {
                seen.put(Integer.parseInt(f[1]), Long.parseLong(f[2]));
                if (newRecoveryPoints.containsKey(Integer.parseInt(f[1]))) continue;
            }
            entries.add(l);
        }
        for (Map.Entry<Integer, Long> e : newRecoveryPoints.entrySet()) entries.add(topic + " " + e.getKey() + " " + e.getValue());
        List<String> out = new ArrayList<>(List.of(lines.get(0), Integer.toString(entries.size())));
        out.addAll(entries);
        Path tmp = logDir.resolve("recovery-point-offset-checkpoint.tmp");
        Files.write(tmp, (String.join("\n", out) + "\n").getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, cp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.out.printf("damage: recovery points as Kafka checkpointed them %s, rewound to %s%n", seen, newRecoveryPoints);
    }
}
JAVA
javac -encoding UTF-8 --release 17 -cp "$CP" -d "$WORK/tool" "$WORK/tool/CrashTool.java" \
    || die "javac CrashTool failed"
TOOL=(java -Dlog4j2.configurationFile="$SCRIPT_DIR/../log4j2.properties" -cp "$WORK/tool:$CP" CrashTool)

# ------------------------------------------------------------------ helpers
# Segment files (.log/.index/.timeindex with a 20-digit base offset) of a partition directory.
seg_files() { (cd -- "$1" && ls -A | grep -E '^[0-9]{20}\.(log|index|timeindex)$' | LC_ALL=C sort) || true; }
# "partition offset" lines of the crash topic in a checkpoint file (version, count, entries).
ckpt() { [[ -f "$1" ]] && awk -v t="$TOPIC" 'NR > 2 && $1 == t { print $2, $3 }' "$1" | sort -n; true; }
# name:size of every segment file of partition p in log dir d.
sizes() { local f; for f in $(seg_files "$1/$TOPIC-$2"); do printf '%s:%s ' "$f" "$(stat -c %s "$1/$TOPIC-$2/$f")"; done; }
dump() { "$ORACLE" kafka-class org.apache.kafka.tools.DumpLogSegments --files "$1" 2>&1 | sed "s#$2#<dir>#g"; }

# ------------------------------------------------------------------ a. write and SIGKILL
log "starting Kafka 4.4.0 in $WORK/kafka"
"$BROKER" start "$WORK/kafka" 2>"$WORK/broker-start.err" || { cat "$WORK/broker-start.err" >&2; die "broker start failed"; }
log "producing to $TOPIC ($PARTS partitions)"
"${TOOL[@]}" produce "127.0.0.1:$PORT" "$TOPIC" "$PARTS" >"$WORK/produce.out" 2>&1 \
    || { cat "$WORK/produce.out" >&2; die "produce failed"; }
tail -n 1 "$WORK/produce.out"
# Let the periodic recovery-point checkpoint (every 1 s) see the flushes of the last rolls, as in
# a broker that ran on for a moment; then SIGKILL.
sleep 3
"$BROKER" kill "$WORK/kafka" 2>>"$WORK/broker-start.err"
KILLED="$WORK/kafka/data"
[[ ! -e "$KILLED/.kafka_cleanshutdown" ]] || die "clean shutdown marker present after SIGKILL"
for ((p = 0; p < PARTS; p++)); do log "killed $TOPIC-$p: $(sizes "$KILLED" "$p")"; done

# ------------------------------------------------------------------ b. damage
"${TOOL[@]}" damage "$KILLED" "$TOPIC" "$SEED" >"$WORK/damage.out" 2>&1 || { cat "$WORK/damage.out" >&2; die "damage failed"; }
grep -v '^expect-log-end ' "$WORK/damage.out" | sed "s/^/crash_recovery_check: /"
# "partition offset": where each damage must make recovery end the log (the damaged batch's base
# offset; crash-1's garbage goes after the last batch, so its log end stays).
EXPECT="$(awk '$1 == "expect-log-end" { print $2, $3 }' "$WORK/damage.out")"

# ------------------------------------------------------------------ c. Kafka recovers A
mkdir -p "$WORK/A" "$WORK/B"
cp -a "$KILLED" "$WORK/A/data"
cp -a "$KILLED" "$WORK/B/data"
A="$WORK/A/data" B="$WORK/B/data"
log "Kafka recovers A (broker.sh resume)"
"$BROKER" resume "$WORK/A" 2>"$WORK/broker-A.err" || { cat "$WORK/broker-A.err" >&2; die "broker resume on A failed"; }
# Every crash partition must be loaded (recovered) before the clean shutdown.
deadline=$((SECONDS + 120))
for ((p = 0; p < PARTS; p++)); do
    until grep -q "Completed load of .*$TOPIC-$p," "$WORK/A/logs/server.log"; do
        (( SECONDS < deadline )) || die "Kafka did not load $TOPIC-$p within 120 s"
        sleep 0.5
    done
done
"$BROKER" stop "$WORK/A" 2>>"$WORK/broker-A.err" || { cat "$WORK/broker-A.err" >&2; die "broker stop on A failed"; }
[[ -f "$A/.kafka_cleanshutdown" ]] || die "Kafka left no .kafka_cleanshutdown in A"
grep -E "LogLoader partition=$TOPIC-|Found invalid messages|Deleting segments as part of log recovery" \
    "$WORK/A/logs/server.log" | grep -E "$TOPIC-[0-9]" | sed -E 's/^\[[^]]*\] //; s#'"$WORK"'/##g; s/^/crash_recovery_check: kafka: /' \
    | grep -vE 'Loading producer state|Reloading from producer snapshot|Producer state recovery took' || true
for ((p = 0; p < PARTS; p++)); do log "kafka   $TOPIC-$p: $(sizes "$A" "$p")"; done
# Premise of the test: Kafka cut each partition where its damage is (after a clean shutdown the
# recovery point is the log end offset).
[[ "$(ckpt "$A/recovery-point-offset-checkpoint")" == "$EXPECT" ]] \
    || die "Kafka's recovered log ends ($(ckpt "$A/recovery-point-offset-checkpoint" | tr '\n' ' ')) are not where the damage is ($(tr '\n' ' ' <<<"$EXPECT"))"
if [[ "${CRASH_CHECK_KAFKA_ONLY:-0}" == 1 ]]; then
    log "CRASH_CHECK_KAFKA_ONLY=1: stopping after Kafka's recovery; workdir $WORK"
    KEEP_WORK=1
    exit 0
fi

# ------------------------------------------------------------------ d. seglog recovers B
log "seglog recovers B ($SEGLOG recover --log-dir B)"
if ! "$SEGLOG" recover --log-dir "$B" >"$WORK/seglog-recover.out" 2>&1; then
    cat "$WORK/seglog-recover.out" >&2
    die "seglog recover failed"
fi
sed "s#$WORK/##g; s/^/crash_recovery_check: seglog: /" "$WORK/seglog-recover.out" | head -n 40
for ((p = 0; p < PARTS; p++)); do log "seglog  $TOPIC-$p: $(sizes "$B" "$p")"; done

# ------------------------------------------------------------------ e. compare
fail=0 nseg=0
for ((p = 0; p < PARTS; p++)); do
    pa="$A/$TOPIC-$p" pb="$B/$TOPIC-$p"
    [[ -d "$pb" ]] || { echo "DIFF $TOPIC-$p: missing in seglog's B"; fail=1; continue; }
    if [[ "$(seg_files "$pa")" != "$(seg_files "$pb")" ]]; then
        echo "DIFF $TOPIC-$p: segment files differ (< kafka, > seglog):"
        diff <(seg_files "$pa") <(seg_files "$pb") | grep '^[<>]' | while read -r side f; do
            d="$pa"; [[ "$side" == ">" ]] && d="$pb"
            echo "  $side $f ($(stat -c %s "$d/$f") bytes)"
            if [[ "$f" == *.log ]]; then dump "$d/$f" "$d" | head -n 12 | sed 's/^/      /'; fi
        done || true
        fail=1
    fi
    for f in $(seg_files "$pa"); do
        [[ "$f" == *.log ]] && nseg=$((nseg + 1))
        [[ -f "$pb/$f" ]] || continue
        if ! cmp -s "$pa/$f" "$pb/$f"; then
            fail=1
            echo "DIFF $TOPIC-$p/$f: kafka $(stat -c %s "$pa/$f") bytes, seglog $(stat -c %s "$pb/$f") bytes;" \
                "$(cmp "$pa/$f" "$pb/$f" 2>&1 | sed "s#$WORK/##g" | head -n 1)"
            echo "  DumpLogSegments diff (--- kafka, +++ seglog), first 80 lines:"
            diff -u <(dump "$pa/$f" "$pa") <(dump "$pb/$f" "$pb") | head -n 80 | sed 's/^/  /' || true
        fi
    done
done
for cpf in recovery-point-offset-checkpoint log-start-offset-checkpoint; do
    if [[ "$(ckpt "$A/$cpf")" != "$(ckpt "$B/$cpf")" ]]; then
        fail=1
        echo "DIFF $cpf entries for $TOPIC (partition offset; < kafka, > seglog):"
        diff <(ckpt "$A/$cpf") <(ckpt "$B/$cpf") | grep '^[<>]' | sed 's/^/  /' || true
    fi
done
[[ -f "$B/.kafka_cleanshutdown" ]] || { echo "DIFF seglog left no .kafka_cleanshutdown in B"; fail=1; }
if [[ -d "$B/.quarantine" ]]; then
    log "seglog quarantine: $(cd "$B/.quarantine" && find . -type f ! -name cuts.log | sort | tr '\n' ' ')"
fi
rp="$(ckpt "$A/recovery-point-offset-checkpoint" | awk -v t="$TOPIC" '{ printf "%s%s-%s=%s", (NR > 1 ? " " : ""), t, $1, $2 }')"
if [[ $fail -ne 0 ]]; then
    echo "crash recovery: seglog and Kafka DIFFER (Kafka's log ends $rp); workdir $WORK"
    exit 1
fi
echo "crash recovery: $PARTS partitions, $nseg segments, identical .log/.index/.timeindex files" \
    "and checkpoint entries (log ends $rp) [${SECONDS}s]"
