package dev.felix.storage;

import java.io.IOException;

/**
 * <b>Stateless; thread-safe.</b>
 *
 * <p>Locating the extent of damage inside one segment: from the fault (position and the offset expected there)
 * to the next valid record that continues the log ({@link RecordResync}). Shared by recovery and reads.
 */
final class SegmentDamage {
    private SegmentDamage() {
    }

    /**
     * The next valid record after a fault at {@code position}, where offset {@code expected} should have been,
     * or null when none follows before {@code limit}.
     *
     * @param kind     the failed check; for an intact header ({@link CorruptionKind#RECORD_CHECKSUM},
     *                 {@link CorruptionKind#OFFSET_OUT_OF_ORDER}) {@code claimed} is the trusted payload length
     * @param segEnd   the segment's known next offset (records after the damage have offsets below it), or -1
     */
    static RecordResync.Found next(final ReadSource src, final long position, final long expected,
                                   final CorruptionKind kind, final long claimed, final long limit, final long segEnd,
                                   final int maxPayload) throws IOException {
        final long maxOffset = segEnd >= 0 ? segEnd - 1 : RecordResync.maxContinuingOffset(expected, position, limit);
        if (kind == CorruptionKind.OFFSET_OUT_OF_ORDER) {
            // A whole, valid record with a later offset: the offsets in between are missing, the record is fine.
            final RecordResync.Found here = RecordResync.verifyAt(src, position, limit, expected + 1, maxOffset, maxPayload);
            if (here != null) {
                return here;
            }
        }
        final boolean headerTrusted = kind == CorruptionKind.RECORD_CHECKSUM || kind == CorruptionKind.OFFSET_OUT_OF_ORDER;
        final long trustedNext = headerTrusted ? position + RecordDescriptor.HEADER_LENGTH + claimed : -1;
        return RecordResync.next(src, position, trustedNext, limit, expected, maxOffset, maxPayload);
    }

    /** A range and whether the call that returned it registered it (and so must log and count it). */
    record Located(CorruptRange range, boolean registered) {
    }

    /**
     * The damaged range for a fault found by a read in {@code seg}: looked up, or located and registered
     * (exactly one caller registers a range). A range that ran to the end of the still-growing active segment is
     * located again once the segment holds offsets beyond it.
     */
    static Located forRead(final Segment seg, final long position, final long expected, final CorruptionKind kind,
                           final long claimed, final String detail, final int maxPayload) throws IOException {
        final CorruptRange known = seg.damage.get(position);
        final long segEnd = seg.nextOffset();
        if (known != null && !(known.runsToSegmentEnd() && !seg.sealed && known.to() < segEnd - 1)) {
            return new Located(known, false);
        }
        final long limit = seg.size();
        final RecordResync.Found f = next(seg.log, position, expected, kind, claimed, limit, segEnd, maxPayload);
        final CorruptRange r = f == null
            ? new CorruptRange(seg.id, seg.logPath, position, expected, Math.max(expected, segEnd) - 1, -1, kind, detail)
            : new CorruptRange(seg.id, seg.logPath, position, expected, f.offset() - 1, f.position(), kind, detail);
        if (known == null) {
            final CorruptRange raced = seg.damage.putIfAbsent(position, r);
            return raced == null ? new Located(r, true) : new Located(raced, false);
        }
        return seg.damage.replace(position, known, r) ? new Located(r, true) : new Located(seg.damage.get(position), false);
    }
}
