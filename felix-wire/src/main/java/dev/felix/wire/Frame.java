package dev.felix.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One complete frame read from the wire: validated header flags and the payload bytes.
 *
 * <p><b>Ownership:</b> when produced by {@link WireCodec#readFrame}, {@code payload} is a slice that
 * <em>shares</em> the source buffer's memory (no copy; read-only if the source is): it is valid only
 * as long as the caller keeps that memory unchanged, and must not be written to. Decode it (the
 * decoders copy what they keep) before reusing or releasing the source buffer.
 *
 * @param flags   the header flags (no bit outside {@link FrameFlags#KNOWN})
 * @param payload the payload, position 0 to limit {@code length}
 */
public record Frame(int flags, ByteBuffer payload) {
    /** @throws NullPointerException if {@code payload} is null */
    public Frame {
        Objects.requireNonNull(payload, "payload");
    }

    /** Header length plus payload length. */
    public int frameLength() {
        return FrameHeader.HEADER_LENGTH + payload.remaining();
    }
}
