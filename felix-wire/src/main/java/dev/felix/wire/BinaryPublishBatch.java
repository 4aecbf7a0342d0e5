package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * Binary publish batch, frame flags {@code 0x0001} (client to broker): fire and forget, never acked.
 *
 * <pre>
 *  offset        size  field
 *  0             2     tenant_len T (u16)
 *  2             T     tenant_id, UTF-8
 *  2+T           2     namespace_len N
 *  4+T           N     namespace, UTF-8
 *  4+T+N         2     stream_len S
 *  6+T+N         S     stream, UTF-8
 *  6+T+N+S       4     count C (u32)
 *  10+T+N+S      ...   C x blob32: u32 payload_len, then payload_len bytes
 * </pre>
 *
 * <p>Decoding: every length is checked against the remaining bytes before anything is read or
 * allocated; {@code count} must be {@code <= remaining / 4} (each blob needs at least its 4-byte
 * length) before the list is allocated ({@link WireError#COUNT_TOO_LARGE}); names must be valid
 * UTF-8; bytes after the last payload are {@link WireError#TRAILING_BYTES} (upstream ignores them;
 * we do not). An empty batch ({@code count = 0}) is valid.
 *
 * <p>Ownership: the record keeps the given arrays (the list is copied, the arrays are not).
 *
 * @param tenantId  tenant, at most 65535 UTF-8 bytes
 * @param namespace namespace, at most 65535 UTF-8 bytes
 * @param stream    stream, at most 65535 UTF-8 bytes
 * @param payloads  event payloads in order
 */
public record BinaryPublishBatch(String tenantId, String namespace, String stream, List<byte[]> payloads)
    implements BinaryPayload {

    /** @throws NullPointerException if any field or payload is null */
    public BinaryPublishBatch {
        Objects.requireNonNull(tenantId, "tenant_id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(stream, "stream");
        payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
    }

    /** {@link FrameFlags#BINARY_PUBLISH_BATCH}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_PUBLISH_BATCH;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinaryPublishBatch b && tenantId.equals(b.tenantId) && namespace.equals(b.namespace)
            && stream.equals(b.stream) && Bytes.listEquals(payloads, b.payloads);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tenantId, namespace, stream, Bytes.listHash(payloads));
    }

    @Override
    public String toString() {
        return "BinaryPublishBatch[tenantId=" + tenantId + ", namespace=" + namespace + ", stream=" + stream
            + ", payloads=" + Bytes.describe(payloads) + "]";
    }
}
