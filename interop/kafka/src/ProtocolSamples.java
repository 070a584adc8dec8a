// Kafka's own generated message classes judge seglog's encodings: each line of stdin is
// "<schema name> <version> <seed> <hex>" (interop/protocol_samples_dump.cc). Each message is
// read with Kafka's class for that schema (which must consume every byte) and written again
// with MessageUtil; the bytes must be identical. Prints "N passed, M failed".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;

public class ProtocolSamples {
    static Class<?> messageClass(String schema) throws ClassNotFoundException {
        String pkg = "org.apache.kafka.common.message.";
        try {
            return Class.forName(pkg + schema + "Data");
        } catch (ClassNotFoundException e) {
            return Class.forName(pkg + schema);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int passed = 0, failed = 0;
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            if (parts.length < 3) continue;
            String schema = parts[0];
            short version = Short.parseShort(parts[1]);
            byte[] bytes = parts.length > 3 ? HexFormat.of().parseHex(parts[3]) : new byte[0];
            String what = schema + " v" + version + " seed " + parts[2];
            try {
                Constructor<?> ctor = messageClass(schema).getConstructor(Readable.class, short.class);
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                Message message = (Message) ctor.newInstance(new ByteBufferAccessor(buf), version);
                if (buf.remaining() != 0) {
                    throw new IllegalStateException(buf.remaining() + " bytes left over");
                }
                ByteBuffer again = MessageUtil.toByteBufferAccessor(message, version).buffer();
                byte[] out = new byte[again.remaining()];
                again.get(out);
                if (!Arrays.equals(out, bytes)) {
                    throw new IllegalStateException("re-encoded differs: " + HexFormat.of().formatHex(out));
                }
                passed++;
            } catch (Throwable t) {
                Throwable cause = t.getCause() != null ? t.getCause() : t;
                if (failed < 50) System.out.println("FAIL " + what + ": " + cause);
                failed++;
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 && passed > 0 ? 0 : 1);
    }
}
