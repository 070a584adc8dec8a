package dev.seglog.kafka;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * A Kafka RemoteStorageManager over seglog's S3 layout, so that a Kafka broker that takes over
 * a seglog directory (docs/operations.md, "Outgrowing one node") reads the segments seglog
 * tiered, and seglog reads the ones Kafka tiers after it. It writes and reads exactly what
 * seglog's S3RemoteStorageManager does (docs/format/remote_storage.md):
 *
 *   objects   <key.prefix><topic>-<topic id>/<partition>/<start offset, 20 digits>-<segment id>.<suffix>
 *             suffix: log, index, timeindex, txnindex (when the segment has one), snapshot,
 *             leader-epoch-checkpoint
 *   custom    the copy's objects, each (kind int8, size int64, CRC-32C uint32), after
 *   metadata  version 0 and the count, then the CRC-32C of those bytes (big-endian)
 *
 * Settings: the same rsm.config.* keys seglog reads (Kafka passes them without the prefix):
 * storage.s3.bucket.name, storage.s3.region, storage.s3.endpoint.url (path-style requests),
 * storage.aws.access.key.id, storage.aws.secret.access.key, key.prefix. Requests are signed
 * with AWS Signature Version 4. Small by design: whole objects in memory for the copy (segment
 * sizes), no multipart upload, no retries (Kafka's remote log manager retries a failed copy).
 *
 * Thread safety: thread-safe (configured once; HttpClient is).
 */
public class SeglogS3RemoteStorageManager implements RemoteStorageManager {
    private static final String[] SUFFIX = {"log", "index", "timeindex", "txnindex", "snapshot",
        "leader-epoch-checkpoint"};
    private static final int LOG = 0, OFFSET = 1, TIME = 2, TXN = 3, SNAPSHOT = 4, EPOCH = 5;

    private String endpoint, bucket, region, accessKey, secretKey, prefix;
    private HttpClient http;

    @Override
    public void configure(Map<String, ?> configs) {
        bucket = required(configs, "storage.s3.bucket.name");
        region = required(configs, "storage.s3.region");
        Object url = configs.get("storage.s3.endpoint.url");
        endpoint = url != null ? url.toString() : "https://s3." + region + ".amazonaws.com";
        if (endpoint.endsWith("/")) endpoint = endpoint.substring(0, endpoint.length() - 1);
        Object id = configs.get("storage.aws.access.key.id");
        Object secret = configs.get("storage.aws.secret.access.key");
        accessKey = id != null ? id.toString() : System.getenv("AWS_ACCESS_KEY_ID");
        secretKey = secret != null ? secret.toString() : System.getenv("AWS_SECRET_ACCESS_KEY");
        Object p = configs.get("key.prefix");
        prefix = p != null ? p.toString() : "";
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static String required(Map<String, ?> configs, String key) {
        Object v = configs.get(key);
        if (v == null || v.toString().isEmpty()) {
            throw new IllegalArgumentException("rsm.config." + key + " is required");
        }
        return v.toString();
    }

    String key(RemoteLogSegmentMetadata md, int kind) {
        TopicIdPartition p = md.remoteLogSegmentId().topicIdPartition();
        return String.format("%s%s-%s/%d/%020d-%s.%s", prefix, p.topic(), p.topicId(),
                p.partition(), md.startOffset(), md.remoteLogSegmentId().id(), SUFFIX[kind]);
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
            RemoteLogSegmentMetadata md, LogSegmentData data) throws RemoteStorageException {
        List<int[]> kinds = new ArrayList<>();
        List<byte[]> bodies = new ArrayList<>();
        try {
            add(kinds, bodies, LOG, Files.readAllBytes(data.logSegment()));
            add(kinds, bodies, OFFSET, Files.readAllBytes(data.offsetIndex()));
            add(kinds, bodies, TIME, Files.readAllBytes(data.timeIndex()));
            if (data.transactionIndex().isPresent()) {
                add(kinds, bodies, TXN, Files.readAllBytes(data.transactionIndex().get()));
            }
            Path snapshot = data.producerSnapshotIndex();
            if (snapshot != null && Files.exists(snapshot)) {
                add(kinds, bodies, SNAPSHOT, Files.readAllBytes(snapshot));
            }
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] e = new byte[epochs.remaining()];
            epochs.get(e);
            add(kinds, bodies, EPOCH, e);
        } catch (IOException ex) {
            throw new RemoteStorageException("reading " + md.remoteLogSegmentId() + "'s files", ex);
        }
        ByteBuffer custom = ByteBuffer.allocate(2 + 13 * kinds.size() + 4);
        custom.put((byte) 0).put((byte) kinds.size());
        for (int i = 0; i < kinds.size(); i++) {
            byte[] body = bodies.get(i);
            send("PUT", key(md, kinds.get(i)[0]), body, null, 200);
            CRC32C crc = new CRC32C();
            crc.update(body);
            custom.put((byte) kinds.get(i)[0]).putLong(body.length).putInt((int) crc.getValue());
        }
        CRC32C all = new CRC32C();
        all.update(custom.array(), 0, custom.position());
        custom.putInt((int) all.getValue());
        return Optional.of(new RemoteLogSegmentMetadata.CustomMetadata(custom.array()));
    }

    private static void add(List<int[]> kinds, List<byte[]> bodies, int kind, byte[] body) {
        kinds.add(new int[] {kind});
        bodies.add(body);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition)
            throws RemoteStorageException {
        return new ByteArrayInputStream(
                send("GET", key(md, LOG), null, "bytes=" + startPosition + "-", 206));
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata md, int startPosition,
            int endPosition) throws RemoteStorageException {
        return new ByteArrayInputStream(send("GET", key(md, LOG), null,
                "bytes=" + startPosition + "-" + endPosition, 206));
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata md, IndexType type)
            throws RemoteStorageException {
        int kind = switch (type) {
            case OFFSET -> OFFSET;
            case TIMESTAMP -> TIME;
            case PRODUCER_SNAPSHOT -> SNAPSHOT;
            case TRANSACTION -> TXN;
            case LEADER_EPOCH -> EPOCH;
        };
        return new ByteArrayInputStream(send("GET", key(md, kind), null, null, 200));
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata md) throws RemoteStorageException {
        for (int kind = 0; kind < SUFFIX.length; kind++) send("DELETE", key(md, kind), null, null, 204);
    }

    @Override
    public void close() {
    }

    // One signed request; returns the body. A missing object is RemoteResourceNotFoundException
    // (Kafka's remote index cache then treats a transaction index as empty), a DELETE of one
    // succeeds.
    private byte[] send(String method, String key, byte[] body, String range, int ok)
            throws RemoteStorageException {
        try {
            byte[] payload = body != null ? body : new byte[0];
            String path = "/" + bucket + "/" + key;
            URI uri = URI.create(endpoint + path);
            String host = uri.getPort() == -1 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
            ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
            String amzDate = now.format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'"));
            String day = amzDate.substring(0, 8);
            String payloadHash = hex(MessageDigest.getInstance("SHA-256").digest(payload));
            String signed = "host;x-amz-content-sha256;x-amz-date";
            String canonical = method + "\n" + path + "\n\n" + "host:" + host + "\n"
                    + "x-amz-content-sha256:" + payloadHash + "\n" + "x-amz-date:" + amzDate + "\n\n"
                    + signed + "\n" + payloadHash;
            String scope = day + "/" + region + "/s3/aws4_request";
            String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
                    + hex(MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8)));
            byte[] k = ("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8);
            for (String part : new String[] {day, region, "s3", "aws4_request"}) k = hmac(k, part);
            String signature = hex(hmac(k, toSign));
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                    .header("x-amz-content-sha256", payloadHash).header("x-amz-date", amzDate)
                    .header("Authorization", "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope
                            + ", SignedHeaders=" + signed + ", Signature=" + signature);
            if (range != null) b.header("Range", range);
            b.method(method, body != null ? HttpRequest.BodyPublishers.ofByteArray(body)
                    : HttpRequest.BodyPublishers.noBody());
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            int status = r.statusCode();
            if (status == ok || (status == 200 && ok == 206) || (method.equals("DELETE") && status / 100 == 2)) {
                return r.body();
            }
            if (status == 404 && !method.equals("DELETE")) {
                throw new RemoteResourceNotFoundException(method + " " + bucket + "/" + key + ": not found");
            }
            if (status == 404) return new byte[0];
            throw new RemoteStorageException(method + " " + bucket + "/" + key + ": HTTP " + status + " "
                    + new String(r.body(), StandardCharsets.UTF_8));
        } catch (RemoteStorageException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteStorageException(method + " " + bucket + "/" + key + " interrupted", e);
        } catch (Exception e) {
            throw new RemoteStorageException(method + " " + bucket + "/" + key + ": " + e, e);
        }
    }

    private static byte[] hmac(byte[] key, String data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
