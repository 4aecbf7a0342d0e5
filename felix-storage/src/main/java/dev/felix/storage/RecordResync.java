package dev.felix.storage;

import static dev.felix.storage.RecordDescriptor.HEADER_CRC_COVERED;
import static dev.felix.storage.RecordDescriptor.HEADER_CRC_OFFSET;
import static dev.felix.storage.RecordDescriptor.HEADER_LENGTH;
import static dev.felix.storage.RecordDescriptor.OFFSET_OFFSET;
import static dev.felix.storage.RecordDescriptor.PAYLOAD_LENGTH_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * <b>Stateless; thread-safe</b> (allocates its buffers per call).
 *
 * <p>After damage at byte {@code P} of a segment: where do valid records start again? Used by recovery (is
 * damage in the newest segment a torn tail, i.e. is nothing valid after it?), by reads (which offsets does the
 * damage cover, where do reads resume?) and by verify.
 *
 * <p>A position {@code q} qualifies when the record there passes every check of the format
 * ({@link RecordDescriptor}): header CRC, length within the payload bound and within the limit, checksum
 * &mdash; and its offset lies in {@code [minOffset, maxOffset]}, i.e. it continues the log. Cheap tests (length,
 * bounds, offset range) run before the header CRC, so a scan through garbage or zeros costs little more than
 * reading it; a chance match needs two CRC-32 collisions and a plausible offset.
 *
 * <p>When the damaged record's header was intact (its CRC passed, so its length is trustworthy) the position
 * right after it is tried first: a flipped payload byte then costs one record, and a payload that happens to
 * contain a well-formed record cannot be mistaken for the next one.
 */
final class RecordResync {
    /** Bytes read per step of the forward scan. */
    static final int WINDOW_BYTES = 1024 * 1024;

    /** A valid record found after damage. */
    record Found(long position, long offset) {
    }

    private RecordResync() {
    }

    /**
     * The first position after {@code faultPosition} holding a fully valid record with an offset in
     * {@code [minOffset, maxOffset]}, or null when there is none before {@code limit}.
     *
     * @param trustedNext position right after the damaged record when its header (and so its length) verified,
     *                    else -1
     */
    static Found next(final ReadSource src, final long faultPosition, final long trustedNext, final long limit,
                      final long minOffset, final long maxOffset, final int maxPayload) throws IOException {
        if (maxOffset < minOffset) {
            return null;
        }
        if (trustedNext > faultPosition && trustedNext + HEADER_LENGTH <= limit) {
            final Found f = verifyAt(src, trustedNext, limit, minOffset, maxOffset, maxPayload);
            if (f != null) {
                return f;
            }
        }
        final ByteBuffer win = ByteBuffer.allocate((int) Math.min(WINDOW_BYTES, Math.max(HEADER_LENGTH, limit - faultPosition)));
        final CRC32 crc = new CRC32();
        long start = faultPosition + 1;
        while (start + HEADER_LENGTH <= limit) {
            final int want = (int) Math.min(win.capacity(), limit - start);
            win.clear();
            win.limit(want);
            src.readFully(win, start);
            win.flip();
            final byte[] a = win.array();
            for (int i = 0; i + HEADER_LENGTH <= want; i++) {
                final long len = Integer.toUnsignedLong(win.getInt(i + PAYLOAD_LENGTH_OFFSET));
                final long q = start + i;
                if (len > maxPayload || q + HEADER_LENGTH + len > limit) {
                    continue;
                }
                final long off = win.getLong(i + OFFSET_OFFSET);
                if (off < minOffset || off > maxOffset) {
                    continue;
                }
                crc.reset();
                crc.update(a, i, HEADER_CRC_COVERED);
                if ((int) crc.getValue() != win.getInt(i + HEADER_CRC_OFFSET)) {
                    continue;
                }
                final Found f = verifyAt(src, q, limit, minOffset, maxOffset, maxPayload);
                if (f != null) {
                    return f;
                }
            }
            if (start + want >= limit) {
                break;
            }
            start += want - HEADER_LENGTH + 1; // windows overlap so every position gets a whole header
        }
        return null;
    }

    /** The record at {@code position} if it passes every check and its offset is in range, else null. */
    static Found verifyAt(final ReadSource src, final long position, final long limit, final long minOffset,
                          final long maxOffset, final int maxPayload) throws IOException {
        final RecordScanner sc = new RecordScanner(src, position, limit, -1, maxPayload, RecordScanner.READ_WINDOW_BYTES);
        if (sc.next(true) != RecordScanner.Step.RECORD || sc.offset() < minOffset || sc.offset() > maxOffset) {
            return null;
        }
        return new Found(position, sc.offset());
    }

    /** Largest offset a record starting after {@code from} can have before {@code limit}, continuing {@code first}. */
    static long maxContinuingOffset(final long first, final long from, final long limit) {
        return first + Math.max(0, (limit - from) / HEADER_LENGTH);
    }
}
