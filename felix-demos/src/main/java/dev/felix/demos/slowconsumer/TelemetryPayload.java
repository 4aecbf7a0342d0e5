package dev.felix.demos.slowconsumer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One telemetry message, big-endian: {@code u64 seq, u64 publish_ns}, padded with {@code 0xAB} to the
 * payload size. The sequence number shows loss at the application level; the timestamp, on the
 * process-wide monotonic clock, gives end-to-end latency (publisher and subscribers share the process).
 */
record TelemetryPayload(long seq, long publishNanos) {

    static final int HEADER_BYTES = 16;
    private static final byte PADDING = (byte) 0xAB;
    /** Origin of the monotonic clock the timestamps count from (first use in the process). */
    private static final long ORIGIN = System.nanoTime();

    /** Nanoseconds on the shared monotonic clock. */
    static long now() {
        return System.nanoTime() - ORIGIN;
    }

    byte[] encode(int payloadBytes) {
        byte[] bytes = new byte[Math.max(payloadBytes, HEADER_BYTES)];
        Arrays.fill(bytes, HEADER_BYTES, bytes.length, PADDING);
        ByteBuffer.wrap(bytes).putLong(seq).putLong(publishNanos);
        return bytes;
    }

    /** The message, or null if the payload is too short. */
    static TelemetryPayload decode(byte[] payload) {
        if (payload.length < HEADER_BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        return new TelemetryPayload(b.getLong(), b.getLong());
    }
}
