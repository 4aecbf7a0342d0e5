package dev.felix.demos.common;

/**
 * How many messages of one size fit one publish frame: the demos write each tick's messages as one batch,
 * and a batch over the SDK's {@code max_frame_bytes} (16 MiB by default) is refused as {@code too_large}
 * before it is sent. So a demo accepting a large {@code --payload} and a high {@code --rate} splits a
 * tick into batches that fit, instead of failing every publish and judging the consequences. Stateless.
 */
public final class FrameBudget {
    private FrameBudget() {
    }

    /** Bytes a batch may carry: the default frame limit less room for names and per-message lengths. */
    static final long BATCH_BYTES = (16L << 20) - (64L << 10);
    /** Upper bound of a batch's per-message framing overhead (length prefix, base64 slack not used: binary). */
    static final int PER_MESSAGE_OVERHEAD = 16;

    /** Most messages of {@code payloadBytes} each in one batch (at least 1). */
    public static int messagesPerBatch(int payloadBytes) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, BATCH_BYTES / (payloadBytes + PER_MESSAGE_OVERHEAD)));
    }
}
