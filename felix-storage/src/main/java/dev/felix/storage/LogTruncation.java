package dev.felix.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * <b>Stateless; the caller holds the append, flush and exclusive lifecycle locks.</b>
 *
 * <p>{@link SegmentedLog#truncate(long)}'s file work. The caller holds the append lock, the flush lock and the
 * exclusive lifecycle lock, so no append, flush pass or read runs meanwhile.
 *
 * <p>Crash safety: a replacement segment (when everything goes) is created <em>before</em> old files are
 * deleted, and segments are deleted newest first, so an interrupted truncate leaves either the old log with
 * an abandoned empty newest segment (recovery removes it: its base does not continue the chain) or a
 * contiguous chain that still ends after {@code offset} (the truncate simply did not finish and is repeated
 * by the caller).
 */
final class LogTruncation {
    private LogTruncation() {
    }

    /** Returns the new tail: {@code offset}, or lower when the records just below it are damaged. */
    static long truncate(final Path dir, final AtomicReference<LogState> state, final long offset,
                         final LogConfig config, final StorageRuntime runtime) throws IOException {
        final LogState st = state.get();
        if (offset >= st.active().nextOffset()) {
            return st.active().nextOffset();
        }
        final List<Segment> all = st.all();
        final List<Segment> keep = new ArrayList<>();
        final List<Segment> drop = new ArrayList<>();
        for (final Segment s : all) {
            (s.baseOffset < offset ? keep : drop).add(s);
        }
        final Segment active;
        if (keep.isEmpty()) {
            active = Segment.create(dir, all.get(all.size() - 1).id + 1, offset, runtime.nowMicros(),
                config.indexSpacingBytes(), runtime.opener());
        } else {
            active = keep.remove(keep.size() - 1);
        }
        for (int i = drop.size() - 1; i >= 0; i--) {
            drop.get(i).delete();
        }
        if (offset < active.nextOffset()) {
            cut(active, offset, config);
        }
        active.sealed = false;
        active.indexSynced = false;
        active.log.force();
        active.syncedSize = active.size();
        SegmentFiles.fsyncDirectory(dir);
        active.dirSynced = true;
        state.set(new LogState(keep, active));
        return active.nextOffset();
    }

    /**
     * Cuts {@code seg} so that {@code offset} is its next offset; when record {@code offset - 1} lies in a damaged
     * range, the cut is made where the damage starts (the segment then ends before the range).
     */
    private static void cut(final Segment seg, final long offset, final LogConfig config) throws IOException {
        long cutPosition = SegmentHeaderDescriptor.LENGTH;
        long lastTimestamp = Long.MIN_VALUE;
        long newNext = offset;
        if (offset > seg.baseOffset) {
            // Start at an entry at or before offset - 1 so the timestamp of the new last record is seen.
            final int k = seg.sparse.floor(offset - 1);
            long start = k < 0 ? SegmentHeaderDescriptor.LENGTH : seg.sparse.positionAt(k);
            long expected = k < 0 ? seg.baseOffset : seg.sparse.offsetAt(k);
            boolean fromIndex = k >= 0;
            scan:
            while (true) {
                final RecordScanner sc = new RecordScanner(seg.log, start, seg.size(), expected, config.maxPayloadBytes(),
                    RecordScanner.READ_WINDOW_BYTES);
                boolean first = true;
                while (true) {
                    final RecordScanner.Step step = sc.next(false);
                    if (step == RecordScanner.Step.RECORD) {
                        lastTimestamp = sc.timestampMicros();
                        if (sc.offset() == offset - 1) {
                            cutPosition = sc.position();
                            break scan;
                        }
                        first = false;
                        continue;
                    }
                    if (fromIndex && first && step == RecordScanner.Step.FAULT && !seg.damage.containsKey(sc.position())) {
                        start = SegmentHeaderDescriptor.LENGTH; // distrust the index entry
                        expected = seg.baseOffset;
                        fromIndex = false;
                        lastTimestamp = Long.MIN_VALUE;
                        continue scan;
                    }
                    if (step == RecordScanner.Step.END) {
                        throw new IOException("cannot locate offset " + offset + " in " + seg.logPath + ": end of segment");
                    }
                    final SegmentDamage.Located loc = SegmentDamage.forRead(seg, sc.position(), sc.expectedOffset(),
                        sc.fault(), sc.faultClaimedLength(), sc.faultDetail(), config.maxPayloadBytes());
                    final CorruptRange r = loc.range();
                    if (offset - 1 <= r.to() || r.runsToSegmentEnd()) {
                        cutPosition = r.faultPosition();
                        newNext = r.from();
                        break scan;
                    }
                    start = r.resumePosition();
                    expected = r.to() + 1;
                    fromIndex = false;
                    continue scan;
                }
            }
        }
        seg.log.truncate(cutPosition);
        seg.sparse.truncateTo(cutPosition);
        IndexFile.rewrite(seg.index, seg.baseOffset, seg.sparse);
        seg.indexDirty = false;
        final long cutAt = cutPosition;
        seg.damage.keySet().removeIf(p -> p >= cutAt);
        seg.restore(cutPosition, newNext, lastTimestamp);
    }
}
