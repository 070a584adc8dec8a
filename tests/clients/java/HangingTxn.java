// Leaves a hanging transaction in a partition, as a crashed or buggy producer of an old
// protocol can: one transactional batch of producer <producer id> (epoch 0) is produced
// straight to the partition, with no AddPartitionsToTxn, so the transaction coordinator never
// learns of it. The broker must run with transaction.partition.verification.enable=false
// (Kafka refuses such a batch otherwise). kafka-transactions.sh find-hanging finds it, and
// abort ends it with a WriteTxnMarkers request.
//
//   HangingTxn <host:port> <topic> <partition> <producer id> <records>
//
// Prints "produced <n> at <base offset>" or fails with the partition's error.
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse;

public class HangingTxn {
    public static void main(String[] args) throws Exception {
        String topic = args[1];
        int partition = Integer.parseInt(args[2]);
        long producerId = Long.parseLong(args[3]);
        int n = Integer.parseInt(args[4]);
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null,
                    ("hanging-" + i).getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords batch = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId,
                (short) 0, 0, records);
        ProduceRequestData req = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30000)
                .setTransactionalId("hanging-" + producerId);
        ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName(topic);
        t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(batch));
        req.topicData().add(t);
        short version = 9;  // names topics by name; flexible
        ProduceResponse r = (ProduceResponse) RawRequest.send(args[0], ApiKeys.PRODUCE, version, req,
                "hanging-txn", 30000);
        var p = r.data().responses().iterator().next().partitionResponses().get(0);
        if (p.errorCode() != 0) {
            System.out.println("error " + p.errorCode() + ": " + p.errorMessage());
            System.exit(1);
        }
        System.out.println("produced " + n + " at " + p.baseOffset());
    }
}
