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
     * Writes one record at {@code dst.position()} and advances the position past it. {@code dst} must have
     * {@code 28 + payload.length} bytes remaining.
     */
    void encode(final ByteBuffer dst, final long offset, final long timestampMicros, final byte[] payload) {
        headerView.putInt(RecordDescriptor.PAYLOAD_LENGTH_OFFSET, payload.length);
        headerView.putLong(RecordDescriptor.OFFSET_OFFSET, offset);
        headerView.putLong(RecordDescriptor.TIMESTAMP_OFFSET, timestampMicros);
        crc.reset();
        crc.update(header, 0, HEADER_CRC_COVERED);
        headerView.putInt(RecordDescriptor.HEADER_CRC_OFFSET, (int) crc.getValue());
        crc.reset();
        crc.update(header, 0, CHECKSUM_COVERED_HEADER);
        crc.update(payload, 0, payload.length);
        headerView.putInt(RecordDescriptor.CHECKSUM_OFFSET, (int) crc.getValue());
        dst.put(header).put(payload);
    }
}
