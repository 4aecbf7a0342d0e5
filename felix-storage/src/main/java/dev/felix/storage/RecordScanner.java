package dev.felix.storage;

import static dev.felix.storage.RecordDescriptor.CHECKSUM_COVERED_HEADER;
import static dev.felix.storage.RecordDescriptor.CHECKSUM_OFFSET;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_COVERED;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.RecordDescriptor.HEADER_LENGTH;
import static dev.felix.storage.RecordDescriptor.OFFSET_OFFSET;
import static dev.felix.storage.RecordDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.felix.storage.RecordDescriptor.TIMESTAMP_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * <b>Not thread-safe:</b> one scanner per reading thread and scan; the {@link ReadSource} may be shared.
 *
 * <p>A forward cursor over the records of one segment between a start position and a byte limit, decoding in
 * the format's order ({@link RecordDescriptor}) and reporting failures as values ({@link Step#FAULT} plus
 * {@link #fault()}), never by throwing for bad bytes. Reads through a read-ahead window; a record larger
 * than the window gets a one-off buffer whose size was bounded by the header CRC and the payload limit
 * before allocation.
 *
 * <p>Not thread-safe: one scanner per reading thread and scan. The underlying {@link ReadSource} may be
 * shared.
 */
final class RecordScanner {
    /** Default read-ahead for reads serving consumers (as upstream: 64 KiB). */
    static final int READ_WINDOW_BYTES = 64 * 1024;
    /** Read-ahead for sequential whole-segment scans (recovery, verify): larger windows mean fewer syscalls. */
    static final int SCAN_WINDOW_BYTES = 1024 * 1024;

    /** What {@link #next(boolean)} found. */
    enum Step {
        /** A valid record; see {@link #offset()}, {@link #timestampMicros()}, {@link #payloadLength()}. */
        RECORD,
        /** The limit was reached exactly on a record boundary. */
        END,
        /** The bytes at {@link #position()} failed {@link #fault()}; the cursor did not move. */
        FAULT
    }

    private final ReadSource source;
    private final long limit;
    private final int maxPayload;
    private final CRC32 crc = new CRC32();
    private final ByteBuffer primary;
    private ByteBuffer window;
    private long windowStart;

    private long position;
    private long expectedOffset;

    private long recordPosition;
    private long offset;
    private long timestampMicros;
    private int payloadLength;
    private boolean payloadVerified;

    private CorruptionKind fault;
    private String faultDetail;
    private long faultClaimedLength;

    /**
     * @param source         where the bytes come from
     * @param start          position of the first record
     * @param limit          exclusive end of the bytes to decode (a file length or a committed size)
     * @param expectedOffset offset the first record must have, or -1 to accept any
     * @param maxPayload     payload bound; larger declared lengths are {@link CorruptionKind#RECORD_TOO_LARGE}
     * @param windowBytes    read-ahead size
     */
    RecordScanner(final ReadSource source, final long start, final long limit, final long expectedOffset,
                  final int maxPayload, final int windowBytes) {
        this.source = source;
        this.position = start;
        this.limit = limit;
        this.expectedOffset = expectedOffset;
        this.maxPayload = maxPayload;
        this.primary = ByteBuffer.allocate(windowBytes);
        this.window = primary;
        this.window.limit(0);
        this.windowStart = start;
    }

    /**
     * Decodes the next record. With {@code verifyPayload} the payload is read and its checksum verified;
     * without, only the header is read and verified (enough to trust the length and skip the payload).
     *
     * @throws IOException if the source cannot be read
     */
    Step next(final boolean verifyPayload) throws IOException {
        fault = null;
        final long remaining = limit - position;
        if (remaining == 0) {
            return Step.END;
        }
        if (remaining < HEADER_LENGTH) {
            return fail(CorruptionKind.TRUNCATED, remaining, "record header needs " + HEADER_LENGTH + " bytes, " + remaining + " left");
        }
        ensure(position, HEADER_LENGTH);
        final int base = (int) (position - windowStart);
        final int len = window.getInt(base + PAYLOAD_LENGTH_OFFSET);
        final long off = window.getLong(base + OFFSET_OFFSET);
        final long ts = window.getLong(base + TIMESTAMP_OFFSET);
        final int storedHeaderCrc = window.getInt(base + HEADER_CRC_OFFSET);
        crc.reset();
        crcUpdate(base, HEADER_CRC_COVERED);
        if ((int) crc.getValue() != storedHeaderCrc) {
            return fail(CorruptionKind.RECORD_HEADER_CHECKSUM, HEADER_LENGTH, String.format(
                "stored 0x%08X, computed 0x%08X", storedHeaderCrc, (int) crc.getValue()));
        }
        final long unsignedLen = Integer.toUnsignedLong(len);
        if (unsignedLen > maxPayload) {
            return fail(CorruptionKind.RECORD_TOO_LARGE, unsignedLen,
                "declared payload " + unsignedLen + " bytes, limit " + maxPayload);
        }
        final long total = HEADER_LENGTH + unsignedLen;
        if (remaining < total) {
            return fail(CorruptionKind.TRUNCATED, unsignedLen,
                "record needs " + total + " bytes, " + remaining + " left");
        }
        if (verifyPayload) {
            ensure(position, (int) total);
            final int b = (int) (position - windowStart);
            final int stored = window.getInt(b + CHECKSUM_OFFSET);
            crc.reset();
            crcUpdate(b, CHECKSUM_COVERED_HEADER);
            crcUpdate(b + HEADER_LENGTH, len);
            if ((int) crc.getValue() != stored) {
                return fail(CorruptionKind.RECORD_CHECKSUM, unsignedLen, String.format(
                    "offset %d: stored 0x%08X, computed 0x%08X", off, stored, (int) crc.getValue()));
            }
        }
        if (expectedOffset >= 0 && off != expectedOffset) {
            return fail(CorruptionKind.OFFSET_OUT_OF_ORDER, unsignedLen, "expected offset " + expectedOffset + ", found " + off);
        }
        recordPosition = position;
        offset = off;
        timestampMicros = ts;
        payloadLength = len;
        payloadVerified = verifyPayload;
        position += total;
        expectedOffset = off + 1;
        return Step.RECORD;
    }

    /**
     * Reads and verifies the payload of the record last returned by {@code next(false)}. On a checksum
     * mismatch the cursor moves back to that record and reports {@link CorruptionKind#RECORD_CHECKSUM}.
     */
    Step verifyCurrentPayload() throws IOException {
        if (payloadVerified) {
            return Step.RECORD;
        }
        final long total = HEADER_LENGTH + Integer.toUnsignedLong(payloadLength);
        ensure(recordPosition, (int) total);
        final int b = (int) (recordPosition - windowStart);
        final int stored = window.getInt(b + CHECKSUM_OFFSET);
        crc.reset();
        crcUpdate(b, CHECKSUM_COVERED_HEADER);
        crcUpdate(b + HEADER_LENGTH, payloadLength);
        if ((int) crc.getValue() != stored) {
            position = recordPosition;
            expectedOffset = offset;
            return fail(CorruptionKind.RECORD_CHECKSUM, Integer.toUnsignedLong(payloadLength), String.format(
                "offset %d: stored 0x%08X, computed 0x%08X", offset, stored, (int) crc.getValue()));
        }
        payloadVerified = true;
        return Step.RECORD;
    }

    /**
     * After a {@link CorruptionKind#RECORD_CHECKSUM} or {@link CorruptionKind#OFFSET_OUT_OF_ORDER} fault
     * (whose header CRC passed, so the length is trustworthy) moves past the bad record so a verifier can
     * keep looking for further problems. Offset continuity restarts from the bad record's offset.
     */
    void skipFaulted() throws IOException {
        if (fault != CorruptionKind.RECORD_CHECKSUM && fault != CorruptionKind.OFFSET_OUT_OF_ORDER) {
            throw new IllegalStateException("cannot skip a " + fault + " fault: its length is not trustworthy");
        }
        ensure(position, HEADER_LENGTH);
        final long found = window.getLong((int) (position - windowStart) + OFFSET_OFFSET);
        position += HEADER_LENGTH + faultClaimedLength;
        expectedOffset = found + 1;
        fault = null;
    }

    /** Copies the current record's payload (read now if {@link #next} was called without verification). */
    byte[] copyPayload() throws IOException {
        if (!payloadVerified) {
            throw new IllegalStateException("payload was not read; call next(true)");
        }
        final byte[] out = new byte[payloadLength];
        window.get((int) (recordPosition - windowStart) + HEADER_LENGTH, out);
        return out;
    }

    /**
     * Copies the current record (header and payload, exactly as stored) into {@code dst} at {@code at}; the
     * payload must have been verified ({@link #next(boolean) next(true)} or {@link #verifyCurrentPayload()}).
     */
    void copyRecordTo(final byte[] dst, final int at) {
        if (!payloadVerified) {
            throw new IllegalStateException("payload was not read; call next(true)");
        }
        window.get((int) (recordPosition - windowStart), dst, at, HEADER_LENGTH + payloadLength);
    }

    private Step fail(final CorruptionKind kind, final long claimedLength, final String detail) {
        fault = kind;
        faultDetail = detail;
        faultClaimedLength = claimedLength;
        return Step.FAULT;
    }

    private void crcUpdate(final int from, final int length) {
        crc.update(window.array(), window.arrayOffset() + from, length);
    }

    /** Makes the window hold {@code [pos, pos + n)}, refilling (and for large records, growing) it. */
    private void ensure(final long pos, final int n) throws IOException {
        if (pos >= windowStart && pos + n <= windowStart + window.limit()) {
            return;
        }
        window = n <= primary.capacity() ? primary : ByteBuffer.allocate(n);
        window.clear();
        final long want = Math.min(window.capacity(), limit - pos);
        window.limit((int) want);
        source.readFully(window, pos);
        window.flip();
        windowStart = pos;
    }

    /** Position of the next record to decode (after a fault: of the faulty one). */
    long position() {
        return position;
    }

    /** Position of the current record. */
    long recordPosition() {
        return recordPosition;
    }

    /** Total length (header + payload) of the current record. */
    long recordLength() {
        return HEADER_LENGTH + Integer.toUnsignedLong(payloadLength);
    }

    long offset() {
        return offset;
    }

    long timestampMicros() {
        return timestampMicros;
    }

    int payloadLength() {
        return payloadLength;
    }

    /** The offset the next record must carry. */
    long expectedOffset() {
        return expectedOffset;
    }

    CorruptionKind fault() {
        return fault;
    }

    String faultDetail() {
        return faultDetail;
    }

    /** For the last fault: the payload length the record claimed (or the bytes left, for a short header). */
    long faultClaimedLength() {
        return faultClaimedLength;
    }

    long limit() {
        return limit;
    }
}
