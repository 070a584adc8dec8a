// Golden protocol messages built with Kafka 4.4.0's own generated classes and serialized by
// them: "<schema name> <version> <hex>" lines on stdout. tests/data/protocol/golden_messages.txt
// is this program's output; seglog's protocol tests decode each line, check the fields below,
// and encode them back to the same bytes (interop.kafka_golden_messages_unchanged checks the
// committed file is still what Kafka writes).
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;

public class GoldenMessages {
    static void emit(String name, short version, Message m) {
        ByteBufferAccessor acc = MessageUtil.toByteBufferAccessor(m, version);
        ByteBuffer b = acc.buffer();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        System.out.println(name + " " + version + " " + HexFormat.of().formatHex(out));
    }

    public static void main(String[] args) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey((short) 0)
            .setRequestApiVersion((short) 9).setCorrelationId(7).setClientId("producer-1");
        emit("RequestHeader", (short) 2, header);
        emit("RequestHeader", (short) 1, header);

        byte[] batch = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5};
        for (short v : new short[] {3, 8, 9, 12}) {
            ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1)
                .setTimeoutMs(30000).setTransactionalId(null);
            ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName("orders");
            t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(2)
                .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(batch))));
            produce.topicData().add(t);
            emit("ProduceRequest", v, produce);
        }

        Uuid topicId = new Uuid(0x0123456789abcdefL, 0x0fedcba987654321L);
        for (short v : new short[] {1, 4, 9, 12, 13}) {
            MetadataResponseData md = new MetadataResponseData().setClusterId(v >= 2 ? "cluster-x" : null)
                .setControllerId(1).setThrottleTimeMs(v >= 3 ? 5 : 0);
            md.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(1)
                .setHost("127.0.0.1").setPort(9092).setRack(null));
            MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName("orders").setIsInternal(false);
            if (v >= 10) topic.setTopicId(topicId);
            for (int p = 0; p < 2; p++) {
                MetadataResponseData.MetadataResponsePartition part = new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(p).setLeaderId(1).setReplicaNodes(List.of(1)).setIsrNodes(List.of(1));
                if (v >= 7) part.setLeaderEpoch(3);
                topic.partitions().add(part);
            }
            md.topics().add(topic);
            emit("MetadataResponse", v, md);
        }

        for (short v : new short[] {4, 11, 12, 16}) {
            FetchResponseData fetch = new FetchResponseData().setThrottleTimeMs(0);
            FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse();
            if (v >= 13) t.setTopicId(topicId); else t.setTopic("orders");
            FetchResponseData.PartitionData p = new FetchResponseData.PartitionData().setPartitionIndex(0)
                .setHighWatermark(100).setLastStableOffset(100).setLogStartOffset(10)
                .setAbortedTransactions(null)
                .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(batch)));
            if (v >= 12) {
                p.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(1).setLeaderEpoch(3));
            }
            t.partitions().add(p);
            fetch.responses().add(t);
            if (v >= 16) {
                fetch.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(1)
                    .setHost("127.0.0.1").setPort(9092));
            }
            emit("FetchResponse", v, fetch);
        }

        for (short v : new short[] {0, 3}) {
            ApiVersionsResponseData av = new ApiVersionsResponseData().setErrorCode((short) 0);
            av.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 0)
                .setMinVersion((short) 0).setMaxVersion((short) 13));
            av.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 18)
                .setMinVersion((short) 0).setMaxVersion((short) 5));
            if (v >= 3) {
                av.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey()
                    .setName("metadata.version").setMinVersion((short) 1).setMaxVersion((short) 27));
                av.setFinalizedFeaturesEpoch(12);
            }
            emit("ApiVersionsResponse", v, av);
        }
    }
}
