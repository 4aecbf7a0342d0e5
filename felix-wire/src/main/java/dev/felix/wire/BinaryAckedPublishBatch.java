package dev.felix.wire;

import java.util.Objects;

/**
 * Acked binary publish batch, frame flags {@code 0x0009} ({@code 0x0001 | 0x0008}, client to
 * broker): the 9-byte {@link AckedPublishPrefix} followed by exactly a {@link BinaryPublishBatch}
 * body. The broker answers with one {@link BinaryPublishAck} carrying the same request id.
 *
 * <pre>
 *  00000000 00000007 | 02 | 0002 7431 | 0007 64656661756c74 | 0004 64656d6f | 00000001 | 00000005 68656c6c6f
 *  request_id=7        per_batch "t1"      "default"            "demo"          count=1    "hello"
 * </pre>
 *
 * @param requestId u64 request id
 * @param ackMode   {@link AckMode#PER_MESSAGE} or {@link AckMode#PER_BATCH}
 * @param batch     the body
 */
public record BinaryAckedPublishBatch(long requestId, AckMode ackMode, BinaryPublishBatch batch)
    implements BinaryPayload {

    /** @throws IllegalArgumentException for {@link AckMode#NONE} */
    public BinaryAckedPublishBatch {
        AckedPublishPrefix.checkMode(ackMode);
        Objects.requireNonNull(batch, "batch");
    }

    /** {@code 0x0009}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED;
    }

    /** The prefix fields. */
    public AckedPublishPrefix prefix() {
        return new AckedPublishPrefix(requestId, ackMode);
    }

    @Override
    public String toString() {
        return "BinaryAckedPublishBatch[requestId=" + Long.toUnsignedString(requestId) + ", ackMode=" + ackMode
            + ", batch=" + batch + "]";
    }
}
