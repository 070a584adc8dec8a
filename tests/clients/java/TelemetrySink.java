// A Kafka broker metrics reporter that receives KIP-714 client telemetry and parses each payload
// as OTLP MetricsData (as a real exporter would), so a Kafka 4.4.0 broker serves
// GetTelemetrySubscriptions and PushTelemetry and answers an undecodable payload INVALID_RECORD.
// Only for comparing Kafka's answers with seglog's (telemetry_cases.py).
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;

public class TelemetrySink implements MetricsReporter, ClientTelemetry {
    @Override public void configure(Map<String, ?> configs) {}
    @Override public void init(List<KafkaMetric> metrics) {}
    @Override public void metricChange(KafkaMetric metric) {}
    @Override public void metricRemoval(KafkaMetric metric) {}
    @Override public void close() {}

    @Override
    public ClientTelemetryReceiver clientReceiver() {
        return (context, payload) -> {
            try {
                MetricsData.parseFrom(payload.data().duplicate());
            } catch (Exception e) {
                throw new RuntimeException("undecodable telemetry payload", e);
            }
        };
    }
}
