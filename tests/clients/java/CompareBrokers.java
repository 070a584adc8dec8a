// Kafka 4.4.0 judges seglog's broker listener: the same requests go to a running Kafka 4.4.0
// node and to `seglog serve`, and Kafka's own classes read both answers.
//
//   CompareBrokers <kafka host:port> <seglog host:port> <exceptions file> <table out>
//
// 1. ApiVersions v4 to both: every API key and version range Kafka advertises, seglog must
//    advertise too, except the APIs in <exceptions file> (lines "<api key> <issue> <why>"),
//    which seglog must not advertise (a later issue brings them).
// 2. For every API Kafka advertises (exceptions aside) and every version of it: the request
//    with every field at its default (ApiMessageType.newRequest()) goes to both on a fresh
//    connection. Neither may close the connection or stay silent, and Kafka's
//    AbstractResponse.errorCounts() of the two answers must be equal.
// 3. Writes <table out>: one markdown row per API Kafka 4.4.0 defines, with Kafka's and
//    seglog's advertised versions and the outcome (docs/compatibility.md includes it).
//
// Prints one line per difference and ends with "N passed, M failed".
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;

public class CompareBrokers {
    static final int TIMEOUT_MS = 15000;

    // What one broker did with one request.
    record Outcome(String kind, Map<Errors, Integer> errors, String detail) {
        String describe() {
            return kind.equals("answer") ? "errors " + errors : kind + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
    }

    static Outcome call(String hostPort, ApiKeys key, short version, ApiMessage body) {
        try {
            AbstractResponse r = RawRequest.send(hostPort, key, version, body, "compare-brokers", TIMEOUT_MS);
            return new Outcome("answer", new TreeMap<>(r.errorCounts()), "");
        } catch (EOFException e) {
            return new Outcome("closed", Map.of(), "");
        } catch (SocketTimeoutException e) {
            return new Outcome("silent", Map.of(), TIMEOUT_MS + " ms");
        } catch (IOException | RuntimeException e) {
            return new Outcome("error", Map.of(), e.toString());
        }
    }

    static ApiVersionsResponseData apiVersions(String hostPort) {
        ApiVersionsRequestData req = new ApiVersionsRequestData()
                .setClientSoftwareName("compare-brokers").setClientSoftwareVersion("1.0");
        try {
            return ((ApiVersionsResponse) RawRequest.send(hostPort, ApiKeys.API_VERSIONS, (short) 4, req,
                    "compare-brokers", TIMEOUT_MS)).data();
        } catch (IOException e) {
            throw new RuntimeException("ApiVersions to " + hostPort + ": " + e, e);
        }
    }

    static Map<Short, short[]> ranges(ApiVersionsResponseData d) {
        Map<Short, short[]> m = new TreeMap<>();
        for (ApiVersionsResponseData.ApiVersion v : d.apiKeys()) {
            m.put(v.apiKey(), new short[] {v.minVersion(), v.maxVersion()});
        }
        return m;
    }

    static String range(short[] r) {
        return r == null ? "-" : (r[0] == r[1] ? "" + r[0] : r[0] + "-" + r[1]);
    }

    // The default request, with the few fields a default would make unanswerable set as a
    // client sets them: Produce with acks=-1 (acks=0 has no answer to compare), DescribeAcls
    // with an ANY filter.
    static ApiMessage defaultRequest(ApiKeys key) {
        ApiMessage m = ApiMessageType.fromApiKey(key.id).newRequest();
        if (m instanceof ProduceRequestData p) p.setAcks((short) -1);
        if (m instanceof DescribeAclsRequestData d) {
            // Every element at ANY (1): Kafka closes the connection on an UNKNOWN (0) one.
            d.setResourceTypeFilter((byte) 1).setPatternTypeFilter((byte) 1)
                    .setOperation((byte) 1).setPermissionType((byte) 1);
        }
        if (m instanceof ApiVersionsRequestData a) {
            a.setClientSoftwareName("compare-brokers").setClientSoftwareVersion("1.0");
        }
        return m;
    }

    // A stable node: the group and transaction coordinators' topics exist and are loaded (a
    // fresh Kafka creates them on the first FindCoordinator and answers
    // COORDINATOR_NOT_AVAILABLE until then; seglog creates them before it answers).
    static void warmUp(String hostPort) throws InterruptedException {
        for (byte type : new byte[] {0, 1}) {
            long deadline = System.currentTimeMillis() + 90_000;
            while (true) {
                FindCoordinatorRequestData req = new FindCoordinatorRequestData()
                        .setKeyType(type).setKey("compare-warmup");
                Outcome o = call(hostPort, ApiKeys.FIND_COORDINATOR, (short) 3, req);
                if (o.kind().equals("answer") && o.errors().keySet().equals(java.util.Set.of(Errors.NONE))) break;
                if (System.currentTimeMillis() > deadline) {
                    throw new RuntimeException(hostPort + ": no coordinator of type " + type + ": " + o.describe());
                }
                Thread.sleep(200);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String kafka = args[0], seglog = args[1];
        Map<Short, String> exceptions = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8)) {
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+", 2);
            exceptions.put(Short.parseShort(parts[0]), parts.length > 1 ? parts[1] : "");
        }
        warmUp(kafka);
        warmUp(seglog);
        Map<Short, short[]> k = ranges(apiVersions(kafka));
        Map<Short, short[]> s = ranges(apiVersions(seglog));
        int passed = 0, failed = 0;
        Map<Short, String> notes = new TreeMap<>();
        for (Map.Entry<Short, short[]> e : k.entrySet()) {
            short id = e.getKey();
            String name = ApiKeys.forId(id).name;
            short[] sr = s.get(id);
            if (exceptions.containsKey(id)) {
                if (sr != null) {
                    System.out.println("FAIL " + name + " (" + id + "): listed as an exception but seglog advertises " + range(sr));
                    failed++;
                } else {
                    passed++;
                }
                continue;
            }
            if (sr == null || sr[0] != e.getValue()[0] || sr[1] != e.getValue()[1]) {
                System.out.println("FAIL " + name + " (" + id + "): Kafka advertises " + range(e.getValue())
                        + ", seglog " + range(sr));
                failed++;
            } else {
                passed++;
            }
        }
        for (Map.Entry<Short, short[]> e : s.entrySet()) {
            if (!k.containsKey(e.getKey())) {
                System.out.println("FAIL " + ApiKeys.forId(e.getKey()).name + ": seglog advertises "
                        + range(e.getValue()) + ", Kafka does not");
                failed++;
            }
        }
        // Every version of every API both advertise, with default fields.
        for (Map.Entry<Short, short[]> e : k.entrySet()) {
            short id = e.getKey();
            if (exceptions.containsKey(id) || !s.containsKey(id)) continue;
            ApiKeys key = ApiKeys.forId(id);
            List<String> diffs = new ArrayList<>();
            List<String> silent = new ArrayList<>();
            // Produce v0-2 are advertised and refused by both (KAFKA-18659): from the oldest
            // version the schema still has.
            short from = (short) Math.max(e.getValue()[0], key.oldestVersion());
            for (short v = from; v <= e.getValue()[1]; v++) {
                Outcome a = call(kafka, key, v, defaultRequest(key));
                Outcome b = call(seglog, key, v, defaultRequest(key));
                boolean ok = a.kind().equals("answer") && b.kind().equals("answer") && a.errors().equals(b.errors());
                if (a.kind().equals("silent") && b.kind().equals("answer")) {
                    // Kafka never answers (AddPartitionsToTxn v4+ with no transactions): seglog
                    // answering instead is the one difference taken, and noted.
                    passed++;
                    silent.add("v" + v);
                    System.out.println("NOTE " + key.name + " v" + v + ": Kafka never answers, seglog " + b.describe());
                } else if (ok) {
                    passed++;
                } else {
                    failed++;
                    diffs.add("v" + v);
                    System.out.println("FAIL " + key.name + " v" + v + ": Kafka " + a.describe() + ", seglog " + b.describe());
                }
            }
            String note = diffs.isEmpty() ? "same answers" : "differs at " + String.join(", ", diffs);
            if (!silent.isEmpty()) {
                note += "; Kafka never answers " + String.join(", ", silent) + " (seglog does)";
            }
            notes.put(id, note);
        }
        StringBuilder table = new StringBuilder();
        table.append("| key | API | Kafka 4.4.0 | seglog | default request, every version |\n");
        table.append("|---|---|---|---|---|\n");
        for (ApiKeys key : ApiKeys.values()) {
            short id = key.id;
            String kv = range(k.get(id)), sv = range(s.get(id));
            String note;
            if (!k.containsKey(id)) {
                note = "not on a broker listener";
            } else if (exceptions.containsKey(id)) {
                note = "later: " + exceptions.get(id);
            } else {
                note = notes.getOrDefault(id, "not compared");
            }
            table.append("| ").append(id).append(" | ").append(key.name).append(" | ").append(kv)
                    .append(" | ").append(sv).append(" | ").append(note).append(" |\n");
        }
        Files.writeString(Path.of(args[3]), table.toString(), StandardCharsets.UTF_8);
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
