// KIP-714's raw answers from one broker: creates the client metrics subscription "cmp"
// (org.apache.kafka.producer., 100 ms) with the Admin client, then sends a fixed sequence of
// GetTelemetrySubscriptions and PushTelemetry requests, raw and on one connection (a broker
// forgets a client instance when its connection closes), and prints one line per answer,
// without the random client instance id, so two brokers' outputs can be compared line by line
// (telemetry_cases.py).
//   java CompareTelemetry host:port
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.GetTelemetrySubscriptionsResponse;
import org.apache.kafka.common.requests.PushTelemetryResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Gauge;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;

final class CompareTelemetry {
    private static final int TIMEOUT_MS = 10000;
    private static String hostPort;
    private static Socket socket;
    private static int correlation = 1;

    private CompareTelemetry() {}

    static AbstractResponse send(ApiKeys key, ApiMessage body) throws Exception {
        RequestHeaderData h = new RequestHeaderData().setRequestApiKey(key.id)
                .setRequestApiVersion((short) 0).setCorrelationId(correlation++)
                .setClientId("cmp-client");
        short headerVersion = key.requestHeaderVersion((short) 0);
        ByteBuffer frame = RequestUtils.serialize(h, headerVersion, body, (short) 0);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        OutputStream out = socket.getOutputStream();
        out.write(ByteBuffer.allocate(4).putInt(bytes.length).array());
        out.write(bytes);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] resp = new byte[in.readInt()];
        in.readFully(resp);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(resp), new RequestHeader(h, headerVersion));
    }

    static GetTelemetrySubscriptionsResponseData get(Uuid id) throws Exception {
        GetTelemetrySubscriptionsRequestData req =
                new GetTelemetrySubscriptionsRequestData().setClientInstanceId(id);
        return ((GetTelemetrySubscriptionsResponse) send(ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, req))
                .data();
    }

    static short push(Uuid id, int sub, int compression, byte[] metrics, boolean terminating)
            throws Exception {
        PushTelemetryRequestData req = new PushTelemetryRequestData().setClientInstanceId(id)
                .setSubscriptionId(sub).setCompressionType((byte) compression)
                .setTerminating(terminating).setMetrics(ByteBuffer.wrap(metrics));
        return ((PushTelemetryResponse) send(ApiKeys.PUSH_TELEMETRY, req)).data().errorCode();
    }

    public static void main(String[] args) throws Exception {
        hostPort = args[0];
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", hostPort))) {
            ConfigResource r = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "cmp");
            admin.incrementalAlterConfigs(Map.of(r, List.of(
                    new AlterConfigOp(new ConfigEntry("metrics", "org.apache.kafka.producer."),
                            AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("interval.ms", "100"),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
        Thread.sleep(2000);  // Kafka's broker learns the subscription from its controller
        byte[] valid = MetricsData.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder()
                .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(Metric.newBuilder()
                        .setName("org.apache.kafka.producer.test").setGauge(Gauge.newBuilder()
                                .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(1))))))
                .build().toByteArray();
        byte[] garbage = {0x0a, 0x7f, 0x01};
        String[] hp = hostPort.split(":");
        socket = new Socket(hp[0], Integer.parseInt(hp[1]));
        socket.setSoTimeout(TIMEOUT_MS);

        GetTelemetrySubscriptionsResponseData g = get(Uuid.ZERO_UUID);
        Uuid id = g.clientInstanceId();
        System.out.println("get: error " + g.errorCode() + " id zero " + id.equals(Uuid.ZERO_UUID)
                + " subscription crc " + (g.subscriptionId() ^ id.hashCode())
                + " compression " + g.acceptedCompressionTypes() + " interval " + g.pushIntervalMs()
                + " max bytes " + g.telemetryMaxBytes() + " delta " + g.deltaTemporality()
                + " metrics " + g.requestedMetrics());
        int sub = g.subscriptionId();
        System.out.println("get again at once: error " + get(id).errorCode());
        System.out.println("push zero id: " + push(Uuid.ZERO_UUID, sub, 0, valid, false));
        System.out.println("push wrong subscription: " + push(id, sub + 1, 0, valid, false));
        System.out.println("push at once: " + push(id, sub, 0, valid, false));
        Thread.sleep(300);
        System.out.println("push compression 9: " + push(id, sub, 9, valid, false));
        Thread.sleep(300);
        System.out.println("push too large: " + push(id, sub, 0, new byte[1048577], false));
        Thread.sleep(300);
        System.out.println("push garbage: " + push(id, sub, 0, garbage, false));
        Thread.sleep(300);
        System.out.println("push garbage zstd: " + push(id, sub, 4, garbage, false));
        Thread.sleep(300);
        System.out.println("push valid: " + push(id, sub, 0, valid, false));
        System.out.println("push terminating at once: " + push(id, sub, 0, valid, true));
        Thread.sleep(300);
        System.out.println("push after terminating: " + push(id, sub, 0, valid, false));
        Thread.sleep(300);
        System.out.println("get after terminating: error " + get(id).errorCode());
        socket.close();
    }
}
