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
 * provably an unfinished write, refuse (naming file and byte position) everything else.
 *
 * <pre>
 * mkdir -p dir (fsync the parent when created)
 * ids = numeric sort of &lt;digits&gt;.log
 * while &gt;1 segment and the newest is shorter than a header: delete it (a roll interrupted before its
 *       header was written)
 * none left: create segment 0 at offset 0
 * each sealed segment (all but the newest):
 *     header valid; base offset continues the previous segment
 *     index valid and non-empty and !verifyAllOnOpen: verify from the last index entry to the end
 *     otherwise (or if that fails): full scan, index rebuilt if it differs
 *     any fault: CORRUPTION (sealed segments are never repaired); must end exactly at file length
 * newest segment: header valid; full scan; fault at the tail repaired per the table in SegmentedLog
 *     (TRUNCATED always, others only with repairCorruptTail), WARN logged; index rebuilt if it differs
 *     base must continue the chain; if not and it has no records, it is an abandoned segment: deleted
 * force every segment and the directory (a crashed predecessor may have left unforced page-cache data
 * that is now reported durable); durable offset = tail
 * </pre>
 *
 * Idempotent: reopening a recovered log reads the same bytes, finds nothing to repair and writes nothing.
 */
final class LogRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(LogRecovery.class);

    /** The segments ready to be served, and the report. */
    record Recovered(List<Segment> sealed, Segment active, RecoveryReport report) {
    }

    private final Path dir;
    private final LogConfig config;
    private final StorageRuntime runtime;
    private long bytesScanned;
    private int indexesRebuilt;
    private int abandoned;
    private RecoveryReport.TailRepair tailRepair;

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
                    prevEnd = s.nextOffset();
                }
                Segment newest = openActive(ids.get(ids.size() - 1), prevEnd, opened);
                if (newest == null) {
                    // The newest segment was abandoned; the previous one becomes active and is re-checked as such.
                    final Segment prev = sealed.remove(sealed.size() - 1);
                    opened.remove(prev);
                    prev.closeQuietly();
                    newest = openActive(prev.id, sealed.isEmpty() ? -1 : sealed.get(sealed.size() - 1).nextOffset(), opened);
                }
                active = newest;
            }
            for (final Segment s : opened) {
                s.log.force();
                s.syncedSize = s.size();
                s.indexSynced = s.sealed;
                s.dirSynced = true;
            }
            SegmentFiles.fsyncDirectory(dir);
            final LogState st = new LogState(sealed, active);
            final RecoveryReport report = new RecoveryReport(dir, created, st.segmentCount(), st.baseOffset(),
                active.nextOffset(), bytesScanned, Optional.ofNullable(tailRepair), indexesRebuilt, abandoned,
                Duration.ofNanos(System.nanoTime() - t0));
            LOG.debug("recovered {}: {}", dir, report);
            return new Recovered(sealed, active, report);
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
    private Segment openWithHeader(final long id, final long prevEnd, final List<Segment> opened) throws IOException {
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
        final Segment seg = openWithHeader(id, prevEnd, opened);
        checkChain(seg, prevEnd);
        final long length = seg.log.size();
        final IndexFile.Loaded loaded = IndexFile.load(seg.index, seg.index.size(), seg.baseOffset, length);
        if (!config.verifyAllOnOpen() && loaded.usable() && loaded.count() > 0) {
            final long[] e = loaded.entries();
            for (int i = 0; i < loaded.count(); i++) {
                seg.sparse.add(e[2 * i], e[2 * i + 1]);
            }
            final int last = loaded.count() - 1;
            final Scan tail = scan(seg, e[2 * last + 1], length, e[2 * last], true);
            if (tail.fault == null) {
                if (seg.sparse.count() > loaded.count()) {
                    persistIndex(seg); // the tail held entries the file missed
                }
                seg.restore(length, tail.nextOffset, tail.lastTimestamp);
                seg.sealed = true;
                return seg;
            }
            LOG.warn("index {} does not match its segment ({} at {}); scanning the whole segment", seg.indexPath,
                tail.fault, tail.faultPosition);
            seg.sparse.truncateTo(0);
        }
        final Scan full = scan(seg, SegmentHeaderDescriptor.LENGTH, length, seg.baseOffset, true);
        if (full.fault != null) {
            throw StorageException.corruption(full.fault, seg.logPath, full.faultPosition,
                full.detail + "; the segment is sealed, so this is not an unfinished write and is never repaired");
        }
        if (!sameEntries(loaded, seg.sparse)) {
            persistIndex(seg);
        }
        seg.restore(length, full.nextOffset, full.lastTimestamp);
        seg.sealed = true;
        return seg;
    }

    /** Returns null when the segment is an abandoned roll (no records, base not continuing the chain); it is deleted. */
    private Segment openActive(final long id, final long prevEnd, final List<Segment> opened) throws IOException {
        final Segment seg = openWithHeader(id, prevEnd, opened);
        long length = seg.log.size();
        final IndexFile.Loaded loaded = IndexFile.load(seg.index, seg.index.size(), seg.baseOffset, length);
        final Scan full = scan(seg, SegmentHeaderDescriptor.LENGTH, length, seg.baseOffset, true);
        if (full.fault != null) {
            if (!repairable(full, length)) {
                final boolean flagHelps = full.fault != CorruptionKind.TRUNCATED && !config.repairCorruptTail()
                    && repairableWithFlag(full, length);
                throw StorageException.corruption(full.fault, seg.logPath, full.faultPosition, full.detail
                    + (flagHelps ? "; this is the last record of the newest segment: if it was never acknowledged, "
                    + "reopen with repairCorruptTail=true to cut it off" : "; not at the tail, refusing to open"));
            }
            final long cut = length - full.faultPosition;
            LOG.warn("repaired torn tail of {}: cut {} bytes at byte position {} ({}: {}); log continues at offset {}",
                seg.logPath, cut, full.faultPosition, full.fault, full.detail, full.nextOffset);
            seg.log.truncate(full.faultPosition);
            tailRepair = new RecoveryReport.TailRepair(seg.logPath, full.faultPosition, cut, full.fault);
            length = full.faultPosition;
        }
        if (prevEnd >= 0 && seg.baseOffset != prevEnd) {
            if (full.nextOffset == seg.baseOffset) {
                opened.remove(seg);
                seg.closeQuietly();
                discard(id, "no records and base offset " + seg.baseOffset + " does not continue " + prevEnd);
                return null;
            }
            checkChain(seg, prevEnd);
        }
        if (!sameEntries(loaded, seg.sparse)) {
            persistIndex(seg);
        }
        seg.restore(length, full.nextOffset, full.lastTimestamp);
        return seg;
    }

    private void checkChain(final Segment seg, final long prevEnd) {
        if (prevEnd >= 0 && seg.baseOffset != prevEnd) {
            throw StorageException.corruption(CorruptionKind.OFFSET_OUT_OF_ORDER, seg.logPath,
                SegmentHeaderDescriptor.BASE_OFFSET_OFFSET, "segment base offset " + seg.baseOffset
                    + " does not continue the previous segment, which ends before offset " + prevEnd);
        }
    }

    private boolean repairable(final Scan s, final long length) {
        return s.fault == CorruptionKind.TRUNCATED || (config.repairCorruptTail() && repairableWithFlag(s, length));
    }

    /** The {@code repairCorruptTail} column of the table: only a failure that reaches the end of the file. */
    private static boolean repairableWithFlag(final Scan s, final long length) {
        final long pos = s.faultPosition;
        switch (s.fault) {
            case TRUNCATED:
                return true;
            case RECORD_HEADER_CHECKSUM:
                return pos + RecordDescriptor.HEADER_LENGTH >= length;
            case RECORD_CHECKSUM:
            case OFFSET_OUT_OF_ORDER:
                return pos + RecordDescriptor.HEADER_LENGTH + s.faultClaimed >= length;
            case RECORD_TOO_LARGE:
                return pos + RecordDescriptor.HEADER_LENGTH + s.faultClaimed > length;
            default:
                return false;
        }
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
        CorruptionKind fault;
        long faultPosition;
        long faultClaimed;
        String detail;
    }

    /**
     * Scans {@code [start, length)} verifying every record, feeding the index emission rule. Stops at the
     * first fault (reported, not thrown).
     */
    private Scan scan(final Segment seg, final long start, final long length, final long expectedOffset,
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
