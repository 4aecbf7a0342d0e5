package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Not thread-safe; confined to the thread opening the log, before the log is published.</b>
 *
 * <p>Recovery of one log directory at open: validate everything that will be trusted, repair only what is
 * provably an unfinished write, serve around damage in sealed segments, refuse (naming file and byte
 * position) everything else.
 *
 * <pre>
 * mkdir -p dir (fsync the parent when created)
 * reset marker: reset.pending.tmp deleted (reset undone); reset.pending finished (see ResetMarkerDescriptor)
 * ids = numeric sort of &lt;digits&gt;.log
 * while &gt;1 segment and the newest is shorter than a header: delete it (a roll interrupted before its
 *       header was written)
 * none left: create segment 0 at offset 0
 * each sealed segment (all but the newest):
 *     header valid (else CORRUPTION); base offset continues the previous segment (else CORRUPTION)
 *     index valid and non-empty and !verifyAllOnOpen: verify from the last index entry to the end
 *     otherwise (or if that fails): full scan; damage is not repaired but located: the next record that
 *         verifies and continues the offsets ends the damaged range, scanning goes on from it; damage with no
 *         valid record after it runs to the segment's end (the next segment's base offset bounds it); every
 *         range is registered for reads (ReadResult.Corrupted), logged at ERROR and counted
 *     index rebuilt if it differs
 * newest segment: header valid; full scan; damage after which no valid record follows is a torn tail: cut,
 *     WARN logged (file, position, bytes cut); damage followed by a valid record: CORRUPTION
 *     base must continue the chain; if not and it has no records, it is an abandoned segment: deleted
 * epoch history loaded (torn last entry cut; entries past the tail moved to it)
 * force every segment and the directory (a crashed predecessor may have left unforced page-cache data
 * that is now reported durable); durable offset = tail
 * </pre>
 *
 * Idempotent: reopening a recovered log reads the same bytes, finds nothing to repair and writes nothing.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    /** The segments ready to be served, the epoch history, the damage found and the report. */
    record Recovered(List<Segment> sealed, Segment active, EpochHistory epochs, List<CorruptRange> damage,
                     RecoveryReport report) {
    }

    private final Path dir;
    private final LogConfig config;
    private final StorageRuntime runtime;
    private long bytesScanned;
    private int indexesRebuilt;
    private int abandoned;
    private RecoveryReport.TailRepair tailRepair;
    private final List<CorruptRange> damage = new ArrayList<>();
    /** A sealed segment whose damage ran to its end: its next offset comes from the following segment. */
    private Segment openEnded;
    private Scan openEndedScan;

    private LogRecovery(final Path dir, final LogConfig config, final StorageRuntime runtime) {
        this.dir = dir;
        this.config = config;
        this.runtime = runtime;
    }

    static Recovered recover(final Path dir, final LogConfig config, final StorageRuntime runtime) {
        return new LogRecovery(dir, config, runtime).run();
    }

    private Recovered run() {
        final long t0 = System.nanoTime();
        final List<Segment> opened = new ArrayList<>();
        try {
            boolean created = false;
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                final Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    SegmentFiles.fsyncDirectory(parent);
                }
            }
            final boolean resetCompleted = LogReset.recover(dir, config, runtime);
            final List<Long> ids = new ArrayList<>(SegmentFiles.listIds(dir));
            while (!ids.isEmpty() && headerless(ids.get(ids.size() - 1))
                && (ids.size() > 1 || ids.get(0) == 0)) {
                // A roll (or the very first segment creation) interrupted before its header was written:
                // it never held a record.
                discard(ids.remove(ids.size() - 1), "shorter than a segment header");
            }
            final Segment active;
            final List<Segment> sealed = new ArrayList<>();
            if (ids.isEmpty()) {
                created = true;
                active = Segment.create(dir, 0, 0, runtime.nowMicros(), config.indexSpacingBytes(), runtime.opener());
                opened.add(active);
            } else {
                long prevEnd = -1;
                for (int i = 0; i < ids.size() - 1; i++) {
                    final Segment s = openSealed(ids.get(i), prevEnd, opened);
                    sealed.add(s);
                    prevEnd = s == openEnded ? -1 : s.nextOffset();
                }
                Segment newest = openActive(ids.get(ids.size() - 1), prevEnd, opened);
                if (newest == null) {
                    // The newest segment was abandoned; the previous one becomes active and is re-checked as such.
                    final Segment prev = sealed.remove(sealed.size() - 1);
                    opened.remove(prev);
                    prev.closeQuietly();
                    damage.removeIf(d -> d.segmentId() == prev.id);
                    newest = openActive(prev.id, sealed.isEmpty() ? -1 : sealed.get(sealed.size() - 1).nextOffset(), opened);
                }
                active = newest;
            }
            final EpochHistory epochs = EpochHistory.load(dir, runtime.opener(), active.nextOffset());
            for (final Segment s : opened) {
                s.log.force();
                s.syncedSize = s.size();
                s.indexSynced = s.sealed;
                s.dirSynced = true;
            }
            SegmentFiles.fsyncDirectory(dir);
            final LogState st = new LogState(sealed, active);
            final List<ReadResult.Corrupted> found = new ArrayList<>();
            for (final CorruptRange d : damage) {
                if (d.count() > 0) {
                    found.add(d.toResult(d.from()));
                }
            }
            final RecoveryReport report = new RecoveryReport(dir, created, st.segmentCount(), st.baseOffset(),
                active.nextOffset(), bytesScanned, Optional.ofNullable(tailRepair), indexesRebuilt, abandoned,
                Duration.ofNanos(System.nanoTime() - t0), found, resetCompleted);
            LOG.debug("recovered {}: {}", dir, report);
            return new Recovered(sealed, active, epochs, List.copyOf(damage), report);
        } catch (final IOException e) {
            closeAll(opened);
            throw StorageException.io("recovery of log failed", dir, e);
        } catch (final RuntimeException e) {
            closeAll(opened);
            throw e;
        }
    }

    private boolean headerless(final long id) throws IOException {
        return Files.size(SegmentFiles.logPath(dir, id)) < SegmentHeaderDescriptor.LENGTH;
    }

    private void discard(final long id, final String why) throws IOException {
        LOG.warn("removing abandoned segment {} ({}): left by an interrupted segment roll, it holds no record",
            SegmentFiles.logPath(dir, id), why);
        Files.deleteIfExists(SegmentFiles.logPath(dir, id));
        Files.deleteIfExists(SegmentFiles.indexPath(dir, id));
        abandoned++;
    }

    /** Opens the .log, validates its header; returns the segment (not yet restored). */
    private Segment openWithHeader(final long id, final List<Segment> opened) throws IOException {
        final Path path = SegmentFiles.logPath(dir, id);
        final SegmentChannel log = SegmentChannel.open(path, SegmentChannel.READ_WRITE, SegmentChannel.READ_WRITE,
            runtime.opener());
        final Segment seg;
        try {
            final long length = log.size();
            final ByteBuffer head = ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH);
            head.limit((int) Math.min(SegmentHeaderDescriptor.LENGTH, length));
            log.readFully(head, 0);
            final SegmentHeader.Decoded decoded = SegmentHeader.decode(head.array(), head.limit());
            if (decoded instanceof SegmentHeader.Invalid) {
                final SegmentHeader.Invalid bad = (SegmentHeader.Invalid) decoded;
                throw StorageException.corruption(bad.kind(), path, 0, bad.detail() + "; segment headers are never repaired");
            }
            final long base = ((SegmentHeader.Valid) decoded).header().baseOffset();
            seg = Segment.open(dir, id, base, log, config.indexSpacingBytes(), runtime.opener());
        } catch (final IOException | RuntimeException e) {
            log.close();
            throw e;
        }
        opened.add(seg);
        return seg;
    }

    private Segment openSealed(final long id, final long prevEnd, final List<Segment> opened) throws IOException {
        final Segment seg = openWithHeader(id, opened);
        continueChain(seg, prevEnd);
        final long length = seg.log.size();
        final IndexFile.Loaded loaded = IndexFile.load(seg.index, seg.index.size(), seg.baseOffset, length);
        if (!config.verifyAllOnOpen() && loaded.usable() && loaded.count() > 0) {
            final long[] e = loaded.entries();
            for (int i = 0; i < loaded.count(); i++) {
                seg.sparse.add(e[2 * i], e[2 * i + 1]);
            }
            final int last = loaded.count() - 1;
            final Scan tail = scan(seg, e[2 * last + 1], length, e[2 * last], false);
            if (tail.fault == null) {
                if (seg.sparse.count() > loaded.count()) {
                    persistIndex(seg); // the tail held entries the file missed
                }
                seg.restore(length, tail.nextOffset, tail.lastTimestamp);
                seg.sealed = true;
                return seg;
            }
            LOG.warn("index {} does not lead to valid records to the end of its segment ({} at {}); scanning the "
                + "whole segment", seg.indexPath, tail.fault, tail.faultPosition);
            seg.sparse.truncateTo(0);
        }
        final Scan full = scan(seg, SegmentHeaderDescriptor.LENGTH, length, seg.baseOffset, true);
        if (!sameEntries(loaded, seg.sparse)) {
            persistIndex(seg);
        }
        seg.restore(length, full.nextOffset, full.lastTimestamp);
        seg.sealed = true;
        if (full.fault != null) {
            // Damage with no valid record after it: the range ends where the next segment begins.
            openEnded = seg;
            openEndedScan = full;
        }
        return seg;
    }

    /**
     * Checks that {@code seg} continues the chain ({@code prevEnd}, or an open-ended damaged predecessor, whose
     * range it then closes).
     */
    private void continueChain(final Segment seg, final long prevEnd) {
        if (openEnded != null) {
            final Segment prev = openEnded;
            final Scan s = openEndedScan;
            openEnded = null;
            openEndedScan = null;
            if (seg.baseOffset < s.faultExpected) {
                throw StorageException.corruption(CorruptionKind.OFFSET_OUT_OF_ORDER, seg.logPath,
                    SegmentHeaderDescriptor.BASE_OFFSET_OFFSET, "segment base offset " + seg.baseOffset + " is below "
                    + s.faultExpected + ", the offset the damaged end of " + prev.logPath + " should continue at");
            }
            prev.restore(prev.size(), seg.baseOffset, s.lastTimestamp);
            register(new CorruptRange(prev.id, prev.logPath, s.faultPosition, s.faultExpected, seg.baseOffset - 1, -1,
                s.fault, s.detail), prev);
            return;
        }
        if (prevEnd >= 0 && seg.baseOffset != prevEnd) {
            throw StorageException.corruption(CorruptionKind.OFFSET_OUT_OF_ORDER, seg.logPath,
                SegmentHeaderDescriptor.BASE_OFFSET_OFFSET, "segment base offset " + seg.baseOffset
                    + " does not continue the previous segment, which ends before offset " + prevEnd);
        }
    }

    /** Returns null when the segment is an abandoned roll (no records, base not continuing the chain); it is deleted. */
    private Segment openActive(final long id, final long prevEnd, final List<Segment> opened) throws IOException {
        final Segment seg = openWithHeader(id, opened);
        long length = seg.log.size();
        final IndexFile.Loaded loaded = IndexFile.load(seg.index, seg.index.size(), seg.baseOffset, length);
        final Scan full = scanToFirstFault(seg, SegmentHeaderDescriptor.LENGTH, length, seg.baseOffset, true);
        refuseOversized(seg, full, length);
        if (full.fault != null) {
            final RecordResync.Found after = full.fault == CorruptionKind.TRUNCATED ? null : SegmentDamage.next(seg.log,
                full.faultPosition, full.faultExpected, full.fault, full.faultClaimed, length, -1, config.maxPayloadBytes());
            if (after != null) {
                throw StorageException.corruption(full.fault, seg.logPath, full.faultPosition, full.detail
                    + "; a valid record (offset " + after.offset() + " at byte position " + after.position()
                    + ") follows the damage, so it is not a torn tail: refusing to open this log (`felix log verify` "
                    + "lists the damage)");
            }
            final long cut = length - full.faultPosition;
            LOG.warn("repaired torn tail of {}: cut {} bytes at byte position {} ({}: {}); no valid record follows; "
                + "log continues at offset {}", seg.logPath, cut, full.faultPosition, full.fault, full.detail,
                full.nextOffset);
            seg.log.truncate(full.faultPosition);
            tailRepair = new RecoveryReport.TailRepair(seg.logPath, full.faultPosition, cut, full.fault);
            length = full.faultPosition;
        }
        if (openEnded == null && prevEnd >= 0 && seg.baseOffset != prevEnd) {
            if (full.nextOffset == seg.baseOffset) {
                opened.remove(seg);
                seg.closeQuietly();
                discard(id, "no records and base offset " + seg.baseOffset + " does not continue " + prevEnd);
                return null;
            }
        }
        continueChain(seg, prevEnd);
        if (!sameEntries(loaded, seg.sparse)) {
            persistIndex(seg);
        }
        seg.restore(length, full.nextOffset, full.lastTimestamp);
        return seg;
    }

    /**
     * A whole record (its header verified and its bytes all present) that is merely larger than
     * {@code maxPayloadBytes} is not damage: the setting was lowered below stored data. Refuse, naming it.
     */
    private void refuseOversized(final Segment seg, final Scan s, final long length) {
        if (s.fault == CorruptionKind.RECORD_TOO_LARGE
            && s.faultPosition + RecordDescriptor.HEADER_LENGTH + s.faultClaimed <= length) {
            throw StorageException.corruption(s.fault, seg.logPath, s.faultPosition, s.detail + "; the record is whole: "
                + "maxPayloadBytes=" + config.maxPayloadBytes() + " is lower than records already stored, raise it");
        }
    }

    private void register(final CorruptRange r, final Segment seg) {
        seg.damage.put(r.faultPosition(), r);
        damage.add(r);
        LOG.error("{}", r.describe());
    }

    private void persistIndex(final Segment seg) throws IOException {
        IndexFile.rewrite(seg.index, seg.baseOffset, seg.sparse);
        seg.index.force();
        indexesRebuilt++;
        LOG.info("rebuilt index {} ({} entries)", seg.indexPath, seg.sparse.count());
    }

    private static boolean sameEntries(final IndexFile.Loaded loaded, final SparseIndex rebuilt) {
        return loaded.usable() && Arrays.equals(loaded.entries(), rebuilt.snapshot());
    }

    /** Outcome of a verifying scan. */
    private static final class Scan {
        long nextOffset;
        long lastTimestamp = Long.MIN_VALUE;
        /** The unresolved fault that ended the scan, if any. */
        CorruptionKind fault;
        long faultPosition;
        long faultClaimed;
        long faultExpected;
        String detail;
    }

    /**
     * Scans {@code [start, length)} of a sealed segment verifying every record and feeding the index emission
     * rule. With {@code locate}, damage is located and registered and the scan continues after it; a fault with
     * no valid record after it ends the scan ({@code fault} set). Without, the first fault ends the scan.
     */
    private Scan scan(final Segment seg, final long start, final long length, final long expectedOffset,
                      final boolean locate) throws IOException {
        long pos = start;
        long expected = expectedOffset;
        Scan out = null;
        while (true) {
            final Scan s = scanToFirstFault(seg, pos, length, expected, true);
            refuseOversized(seg, s, length);
            if (out != null && s.lastTimestamp == Long.MIN_VALUE) {
                s.lastTimestamp = out.lastTimestamp;
            }
            out = s;
            if (s.fault == null || !locate) {
                return s;
            }
            // Index the damaged record where an append indexed it, so the rebuilt index matches the original and
            // stays valid (its first entry is the segment's first record even when that record is damaged).
            seg.sparse.observe(s.faultExpected, s.faultPosition);
            final RecordResync.Found f = SegmentDamage.next(seg.log, s.faultPosition, s.faultExpected, s.fault,
                s.faultClaimed, length, -1, config.maxPayloadBytes());
            if (f == null) {
                return s;
            }
            register(new CorruptRange(seg.id, seg.logPath, s.faultPosition, s.faultExpected, f.offset() - 1,
                f.position(), s.fault, s.detail), seg);
            pos = f.position();
            expected = f.offset();
        }
    }

    /** Scans {@code [start, length)} verifying every record; stops at the first fault (reported, not thrown). */
    private Scan scanToFirstFault(final Segment seg, final long start, final long length, final long expectedOffset,
                                  final boolean feedIndex) throws IOException {
        final RecordScanner sc = new RecordScanner(seg.log, start, length, expectedOffset, config.maxPayloadBytes(),
            RecordScanner.SCAN_WINDOW_BYTES);
        final Scan out = new Scan();
        out.nextOffset = expectedOffset;
        while (true) {
            final RecordScanner.Step step = sc.next(true);
            if (step == RecordScanner.Step.END) {
                break;
            }
            if (step == RecordScanner.Step.FAULT) {
                out.fault = sc.fault();
                out.faultPosition = sc.position();
                out.faultClaimed = sc.faultClaimedLength();
                out.faultExpected = sc.expectedOffset();
                out.detail = sc.faultDetail();
                break;
            }
            if (feedIndex) {
                seg.sparse.observe(sc.offset(), sc.recordPosition());
            }
            out.nextOffset = sc.offset() + 1;
            out.lastTimestamp = sc.timestampMicros();
        }
        bytesScanned += sc.position() - start;
        return out;
    }

    private static void closeAll(final List<Segment> segments) {
        for (final Segment s : segments) {
            s.closeQuietly();
        }
    }
}
