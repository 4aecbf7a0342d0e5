package dev.felix.storage;

import static dev.felix.storage.RecordDescriptor.CHECKSUM_COVERED_HEADER;
import static dev.felix.storage.RecordDescriptor.CHECKSUM_OFFSET;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_COVERED;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.RecordDescriptor.HEADER_LENGTH;
import static dev.felix.storage.RecordDescriptor.OFFSET_OFFSET;
import static dev.felix.storage.RecordDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.felix.storage.RecordDescriptor.TIMESTAMP_OFFSET;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * <b>Immutable after {@link #validate}; thread-safe.</b>
 *
 * <p>A run of records in the on-disk layout ({@link RecordDescriptor}) received for
 * {@link SegmentedLog#appendRaw}, validated completely before anything is written: every header CRC, every
 * declared length against the payload bound and the bytes actually present (checked before the length is used
 * for anything), every checksum, and offsets contiguous from the expected first offset. Nothing is allocated
 * per record: the CRCs run over the caller's array.
 *
 * @param bytes         the records, exactly (no trailing bytes)
 * @param firstOffset   offset of the first record
 * @param positions     byte position of each record inside {@code bytes}
 * @param lastTimestamp timestamp of the last record
 */
record RawBatch(byte[] bytes, long firstOffset, int[] positions, long lastTimestamp) {

    int count() {
        return positions.length;
    }

    /**
     * @throws StorageException {@link StorageErrorCode#INVALID_BATCH} naming the failed check and the byte
     *                          position in {@code bytes}; {@link StorageErrorCode#INVALID_ARGUMENT} for no bytes
     */
    static RawBatch validate(final byte[] bytes, final long expectedFirstOffset, final int maxPayload) {
        if (bytes == null || bytes.length == 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "appendRaw needs at least one record");
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        final CRC32 crc = new CRC32();
        int[] positions = new int[Math.max(1, Math.min(1024, bytes.length / HEADER_LENGTH))];
        int n = 0;
        long expected = expectedFirstOffset;
        long lastTs = Long.MIN_VALUE;
        int p = 0;
        while (p < bytes.length) {
            final int left = bytes.length - p;
            if (left < HEADER_LENGTH) {
                throw StorageException.invalidBatch(CorruptionKind.TRUNCATED, p, "record header needs " + HEADER_LENGTH
                    + " bytes, " + left + " left");
            }
            crc.reset();
            crc.update(bytes, p, HEADER_CRC_COVERED);
            if ((int) crc.getValue() != b.getInt(p + HEADER_CRC_OFFSET)) {
                throw StorageException.invalidBatch(CorruptionKind.RECORD_HEADER_CHECKSUM, p, String.format(
                    "stored 0x%08X, computed 0x%08X", b.getInt(p + HEADER_CRC_OFFSET), (int) crc.getValue()));
            }
            final long len = Integer.toUnsignedLong(b.getInt(p + PAYLOAD_LENGTH_OFFSET));
            if (len > maxPayload) {
                throw StorageException.invalidBatch(CorruptionKind.RECORD_TOO_LARGE, p, "declared payload " + len
                    + " bytes, maxPayloadBytes is " + maxPayload);
            }
            if (HEADER_LENGTH + len > left) {
                throw StorageException.invalidBatch(CorruptionKind.TRUNCATED, p, "record declares " + (HEADER_LENGTH + len)
                    + " bytes, " + left + " left");
            }
            crc.reset();
            crc.update(bytes, p, CHECKSUM_COVERED_HEADER);
            crc.update(bytes, p + HEADER_LENGTH, (int) len);
            if ((int) crc.getValue() != b.getInt(p + CHECKSUM_OFFSET)) {
                throw StorageException.invalidBatch(CorruptionKind.RECORD_CHECKSUM, p, String.format(
                    "offset %d: stored 0x%08X, computed 0x%08X", b.getLong(p + OFFSET_OFFSET), b.getInt(p + CHECKSUM_OFFSET),
                    (int) crc.getValue()));
            }
            final long off = b.getLong(p + OFFSET_OFFSET);
            if (off != expected) {
                throw StorageException.invalidBatch(CorruptionKind.OFFSET_OUT_OF_ORDER, p, "expected offset " + expected
                    + ", found " + off);
            }
            if (n == positions.length) {
                positions = java.util.Arrays.copyOf(positions, positions.length * 2);
            }
            positions[n++] = p;
            lastTs = b.getLong(p + TIMESTAMP_OFFSET);
            expected++;
            p += HEADER_LENGTH + (int) len;
        }
        return new RawBatch(bytes, expectedFirstOffset, java.util.Arrays.copyOf(positions, n), lastTs);
    }
}
