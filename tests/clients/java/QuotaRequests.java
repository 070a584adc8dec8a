// The client quota requests no admin tool sends (ConfigCommand checks keys and entity types
// before it asks): AlterClientQuotas with bad entities, keys and values, duplicates and
// validate_only, and DescribeClientQuotas with bad filters, written with Kafka 4.4.0's message
// classes (RawRequest) to one broker. Prints one line per answer, in a form that does not
// depend on the order of a response's entries, so that seglog's and Kafka's can be compared.
//
//   QuotaRequests <host:port>
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;

public final class QuotaRequests {
    private QuotaRequests() {}

    // "type=name" pairs, a name "null" for the default entity; an op "key=value" or "-key".
    static AlterClientQuotasRequestData.EntryData entry(String[] entity, String... ops) {
        AlterClientQuotasRequestData.EntryData e = new AlterClientQuotasRequestData.EntryData();
        for (String pair : entity) {
            String[] kv = pair.split("=", 2);
            e.entity().add(new AlterClientQuotasRequestData.EntityData().setEntityType(kv[0])
                    .setEntityName(kv[1].equals("null") ? null : kv[1]));
        }
        for (String op : ops) {
            AlterClientQuotasRequestData.OpData o = new AlterClientQuotasRequestData.OpData();
            if (op.startsWith("-")) {
                o.setKey(op.substring(1)).setRemove(true);
            } else {
                String[] kv = op.split("=", 2);
                o.setKey(kv[0]).setValue(Double.parseDouble(kv[1]));
            }
            e.ops().add(o);
        }
        return e;
    }

    static String[] e(String... pairs) {
        return pairs;
    }

    static String alter(String hostPort, boolean validateOnly,
                        AlterClientQuotasRequestData.EntryData... entries) throws Exception {
        AlterClientQuotasRequestData req = new AlterClientQuotasRequestData()
                .setValidateOnly(validateOnly).setEntries(new ArrayList<>(Arrays.asList(entries)));
        AlterClientQuotasResponseData r = ((AlterClientQuotasResponse) RawRequest.send(
                hostPort, ApiKeys.ALTER_CLIENT_QUOTAS, (short) 1, req, "quota-requests",
                30000)).data();
        List<String> lines = new ArrayList<>();
        for (AlterClientQuotasResponseData.EntryData d : r.entries()) {
            List<String> entity = d.entity().stream()
                    .map(x -> x.entityType() + "=" + x.entityName()).sorted()
                    .collect(Collectors.toList());
            lines.add(entity + " " + d.errorCode() + " " + d.errorMessage());
        }
        lines.sort(null);
        return String.join(" | ", lines);
    }

    static DescribeClientQuotasRequestData.ComponentData c(String type, int matchType,
                                                           String match) {
        return new DescribeClientQuotasRequestData.ComponentData().setEntityType(type)
                .setMatchType((byte) matchType).setMatch(match);
    }

    static String describe(String hostPort, boolean strict,
                           DescribeClientQuotasRequestData.ComponentData... components)
            throws Exception {
        DescribeClientQuotasRequestData req = new DescribeClientQuotasRequestData()
                .setStrict(strict).setComponents(new ArrayList<>(Arrays.asList(components)));
        DescribeClientQuotasResponseData r = ((DescribeClientQuotasResponse) RawRequest.send(
                hostPort, ApiKeys.DESCRIBE_CLIENT_QUOTAS, (short) 1, req, "quota-requests",
                30000)).data();
        String entries = "null";
        if (r.entries() != null) {
            List<String> lines = new ArrayList<>();
            for (DescribeClientQuotasResponseData.EntryData d : r.entries()) {
                List<String> entity = d.entity().stream()
                        .map(x -> x.entityType() + "=" + x.entityName()).sorted()
                        .collect(Collectors.toList());
                List<String> values = d.values().stream()
                        .map(x -> x.key() + "=" + x.value()).sorted()
                        .collect(Collectors.toList());
                lines.add(entity + " " + values);
            }
            lines.sort(null);
            entries = lines.toString();
        }
        return r.errorCode() + " " + r.errorMessage() + " " + entries;
    }

    public static void main(String[] args) throws Exception {
        String b = args[0];
        String[] user = e("user=alice");
        List<String[]> out = new ArrayList<>();
        // Alterations checked only (validate_only), then applied.
        out.add(new String[] {"unknown type",
            alter(b, true, entry(e("group=g"), "producer_byte_rate=1"))});
        out.add(new String[] {"ip with user",
            alter(b, true, entry(e("ip=1.2.3.4", "user=u"), "producer_byte_rate=1"))});
        out.add(new String[] {"empty name", alter(b, true, entry(e("client-id="),
            "producer_byte_rate=1"))});
        out.add(new String[] {"empty entity", alter(b, true, entry(e(), "producer_byte_rate=1"))});
        out.add(new String[] {"type twice", alter(b, true,
            entry(e("user=a", "user=b"), "producer_byte_rate=1"))});
        out.add(new String[] {"duplicate key", alter(b, true,
            entry(user, "producer_byte_rate=1", "producer_byte_rate=2"))});
        out.add(new String[] {"duplicate entity", alter(b, true,
            entry(e("user=alice", "client-id=app"), "producer_byte_rate=1"),
            entry(e("client-id=app", "user=alice"), "consumer_byte_rate=1"))});
        out.add(new String[] {"key of ip", alter(b, true,
            entry(user, "connection_creation_rate=1"))});
        out.add(new String[] {"key of user", alter(b, true,
            entry(e("ip=null"), "producer_byte_rate=1"))});
        out.add(new String[] {"unknown key", alter(b, true, entry(user, "banana=1"))});
        out.add(new String[] {"nan", alter(b, true, entry(user, "request_percentage=NaN"))});
        out.add(new String[] {"infinite", alter(b, true,
            entry(user, "producer_byte_rate=Infinity"))});
        out.add(new String[] {"negative", alter(b, true, entry(user, "producer_byte_rate=-1"))});
        out.add(new String[] {"zero double", alter(b, true, entry(user, "request_percentage=0"))});
        out.add(new String[] {"fraction", alter(b, true, entry(user, "consumer_byte_rate=1.5"))});
        out.add(new String[] {"too large long", alter(b, true,
            entry(user, "consumer_byte_rate=1e19"))});
        out.add(new String[] {"too large int", alter(b, true,
            entry(e("ip=null"), "connection_creation_rate=3e9"))});
        out.add(new String[] {"int fraction", alter(b, true,
            entry(e("ip=10.0.0.1"), "connection_creation_rate=2.5"))});
        out.add(new String[] {"removal of an absent key", alter(b, true,
            entry(user, "-producer_byte_rate", "-banana"))});
        out.add(new String[] {"good and bad keys", alter(b, false,
            entry(user, "request_percentage=5", "producer_byte_rate=0.5"))});
        out.add(new String[] {"applied", alter(b, false,
            entry(user, "producer_byte_rate=1024", "request_percentage=12.5"),
            entry(e("user=alice", "client-id=null"), "consumer_byte_rate=100"),
            entry(e("client-id=null"), "controller_mutation_rate=2"),
            entry(e("ip=null"), "connection_creation_rate=10"),
            entry(e("ip=127.0.0.1"), "connection_creation_rate=20"))});
        out.add(new String[] {"validate_only changes nothing", alter(b, true,
            entry(user, "-producer_byte_rate"))});
        out.add(new String[] {"removal", alter(b, false, entry(user, "-request_percentage"))});
        // Descriptions.
        out.add(new String[] {"all", describe(b, false)});
        out.add(new String[] {"all strict", describe(b, true)});
        out.add(new String[] {"user alice", describe(b, false, c("user", 0, "alice"))});
        out.add(new String[] {"user alice strict", describe(b, true, c("user", 0, "alice"))});
        out.add(new String[] {"default client-id", describe(b, false, c("client-id", 1, null))});
        out.add(new String[] {"specified client-id", describe(b, true, c("user", 0, "alice"),
            c("client-id", 2, null))});
        out.add(new String[] {"specified ip", describe(b, false, c("ip", 2, null))});
        out.add(new String[] {"empty type", describe(b, false, c("", 0, "x"))});
        out.add(new String[] {"type twice", describe(b, false, c("user", 0, "a"),
            c("user", 2, null))});
        out.add(new String[] {"unsupported type", describe(b, false, c("group", 2, null))});
        out.add(new String[] {"exact null", describe(b, false, c("user", 0, null))});
        out.add(new String[] {"default with match", describe(b, false, c("user", 1, "x"))});
        out.add(new String[] {"specified with match", describe(b, false, c("user", 2, "x"))});
        out.add(new String[] {"unknown match type", describe(b, false, c("user", 7, null))});
        out.add(new String[] {"ip with user", describe(b, false, c("ip", 2, null),
            c("user", 0, "a"))});
        for (String[] line : out) {
            System.out.println(line[0] + ": " + line[1]);
        }
    }
}
