// One Kafka request on a connection of its own, without a client library: the header and
// body written with Kafka 4.4.0's own message classes, the answer read back with them. For the
// tests that must send what no client sends (CompareBrokers' default requests, HangingTxn's
// transactional batch without AddPartitionsToTxn).
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

final class RawRequest {
    private static int correlation = 1;

    private RawRequest() {}

    // Sends `body` as `key` at `version` to host:port and returns the parsed answer. An
    // EOFException means the broker closed the connection instead of answering; a
    // SocketTimeoutException that it said nothing within `timeoutMs`.
    static synchronized AbstractResponse send(String hostPort, ApiKeys key, short version,
                                              ApiMessage body, String clientId, int timeoutMs)
            throws IOException {
        RequestHeaderData h = new RequestHeaderData().setRequestApiKey(key.id)
                .setRequestApiVersion(version).setCorrelationId(correlation++).setClientId(clientId);
        short headerVersion = key.requestHeaderVersion(version);
        ByteBuffer frame = RequestUtils.serialize(h, headerVersion, body, version);
        String[] hp = hostPort.split(":");
        try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
            s.setSoTimeout(timeoutMs);
            OutputStream out = s.getOutputStream();
            byte[] bytes = new byte[frame.remaining()];
            frame.get(bytes);
            out.write(ByteBuffer.allocate(4).putInt(bytes.length).array());
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] resp = new byte[in.readInt()];
            in.readFully(resp);
            return AbstractResponse.parseResponse(ByteBuffer.wrap(resp), new RequestHeader(h, headerVersion));
        }
    }
}
