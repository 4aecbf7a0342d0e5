package dev.felix.storage;

import static dev.felix.storage.RecordDescriptor.CHECKSUM_COVERED_HEADER;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_COVERED;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * <b>Not thread-safe:</b> one instance per lock holder (it carries a reusable CRC and header buffer).
 *
 * <p>Encodes records into a staging buffer in the v2 layout ({@link RecordDescriptor}).
 */
final class RecordEncoder {
    private final CRC32 crc = new CRC32();
    /** The header is assembled here so both CRCs run over a heap array, whatever kind {@code dst} is. */
    private final byte[] header = new byte[RecordDescriptor.HEADER_LENGTH];
    private final ByteBuffer headerView = ByteBuffer.wrap(header);

    /**
     * Writes payload {@code i} of {@code payloads} as one record at {@code dst.position()} and advances the position
     * past it ({@code dst} must have {@code 28 + length} bytes left before its limit, which is left as it was). The
     * payload is copied straight into {@code dst} first, behind room for the header, so its checksum is computed where
     * it was written, from an array or lent memory alike; then the header goes into that room.
     */
    void encode(final ByteBuffer dst, final long offset, final long timestampMicros, final PayloadSource payloads,
                final int i) {
        final int length = payloads.length(i);
        final int headerAt = dst.position();
        final int payloadAt = headerAt + RecordDescriptor.HEADER_LENGTH;
        final int limit = dst.limit();
        if (payloadAt + length > limit) {
            throw new java.nio.BufferOverflowException();
        }
        dst.limit(payloadAt + length).position(payloadAt);
        payloads.copyTo(i, dst);
        if (dst.position() != payloadAt + length) {
            throw new IllegalStateException("payload " + i + " copied " + (dst.position() - payloadAt) + " bytes, not "
                + length);
        }
        headerView.putInt(RecordDescriptor.PAYLOAD_LENGTH_OFFSET, length);
        headerView.putLong(RecordDescriptor.OFFSET_OFFSET, offset);
        headerView.putLong(RecordDescriptor.TIMESTAMP_OFFSET, timestampMicros);
        crc.reset();
        crc.update(header, 0, HEADER_CRC_COVERED);
        headerView.putInt(RecordDescriptor.HEADER_CRC_OFFSET, (int) crc.getValue());
        crc.reset();
        crc.update(header, 0, CHECKSUM_COVERED_HEADER);
        dst.position(payloadAt);
        crc.update(dst); // the payload just written; leaves the position after it
        headerView.putInt(RecordDescriptor.CHECKSUM_OFFSET, (int) crc.getValue());
        dst.put(headerAt, header);
        dst.limit(limit);
    }
}
