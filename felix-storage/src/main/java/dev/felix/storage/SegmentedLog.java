package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Thread-safe; owns its directory from {@link #open} to {@link #close()}</b> (contract below).
 *
 * <p>The durable log of one shard: a directory of checksummed segment files ({@link SegmentHeaderDescriptor},
 * {@link RecordDescriptor}) with sparse indexes ({@link IndexDescriptor}), contiguous offsets from
 * {@link #baseOffset()} to {@link #tailOffset()}, group-committed flushes and size/age retention.
 *
 * <p><b>Concurrency contract.</b> All methods are thread-safe.
 * <ul>
 *   <li>{@link #append} calls from any number of threads are serialised by the <em>append lock</em>; each
 *       call assigns a contiguous offset range, encodes the batch into one buffer and writes it with one
 *       positioned write (batches over {@value StorageRuntime#MAX_STAGING_BYTES} bytes are written in
 *       chunks of that size). A batch never spans segments. The append lock is never held across a device
 *       flush: sealing a segment only queues its flush.</li>
 *   <li>{@link #read} runs concurrently with appends and other reads (shared <em>lifecycle</em> lock) and
 *       sees only records whose bytes were fully written: an append publishes the new end of data before
 *       the new tail offset.</li>
 *   <li>{@link #flush} never blocks: it returns a future completed on a runtime flush thread once
 *       {@link #durableOffset()} covers the requested offset (see {@link GroupCommit}). Callers acknowledge a
 *       write only after that future completed normally.</li>
 *   <li>{@link #enforceRetention()}, {@link #truncate(long)} and {@link #close()} take the lifecycle lock
 *       exclusively for the moment they change the segment list, so reads never see a segment vanish under
 *       them.</li>
 * </ul>
 *
 * <p><b>Ownership.</b> The log owns its files from {@link #open} to {@link #close()}; a second log (in this
 * or another process) on the same directory would corrupt it and is not detected. Payload arrays passed to
 * {@link #append} are read during the call only; records returned by {@link #read} own fresh arrays.
 *
 * <p><b>Recovery at open</b> (idempotent; see {@link LogRecovery}): segment files are sorted numerically;
 * headers and the offset chain are validated; sealed segments are checked from their last valid index
 * entry (or fully, with {@link LogConfig#verifyAllOnOpen()} or when the index is missing or invalid); the
 * newest segment is always scanned fully and its index rebuilt. Failures at the end of the newest segment
 * are repaired as follows, anything else refuses to open with {@link StorageErrorCode#CORRUPTION} naming
 * the file and byte position:
 * <table>
 *   <caption>Tail repair</caption>
 *   <tr><th>failure at the tail</th><th>default</th><th>{@code repairCorruptTail=true}</th></tr>
 *   <tr><td>{@link CorruptionKind#TRUNCATED} (provably unfinished write)</td><td>cut, WARN logged</td><td>cut</td></tr>
 *   <tr><td>{@link CorruptionKind#RECORD_HEADER_CHECKSUM}</td><td>refuse</td><td>cut if {@code pos + 28 >= file length}</td></tr>
 *   <tr><td>{@link CorruptionKind#RECORD_CHECKSUM}, {@link CorruptionKind#OFFSET_OUT_OF_ORDER}</td><td>refuse</td>
 *       <td>cut if the record is the last one ({@code pos + 28 + len >= file length})</td></tr>
 *   <tr><td>{@link CorruptionKind#RECORD_TOO_LARGE}</td><td>refuse</td><td>cut if {@code pos + 28 + len > file length}</td></tr>
 *   <tr><td>segment header damage; anything in a sealed segment</td><td>refuse</td><td>refuse</td></tr>
 * </table>
 */
public final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);

    private final Path dir;
    private final LogConfig config;
    private final StorageRuntime runtime;
    private final LogMetrics metrics;
    private final RecoveryReport recoveryReport;
    private final AtomicReference<LogState> state;
    private final GroupCommit commit;

    /** Serialises appends, rolls and truncation; never held across a device flush. */
    private final ReentrantLock appendLock = new ReentrantLock();
    /** Shared by reads; exclusive while segments leave the log (retention, truncate, close). */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    /** Serialises head removals: retention passes (explicit and timer-driven) and {@link #trimBefore}. */
    private final ReentrantLock retentionLock = new ReentrantLock();
    /** Guarded by appendLock. */
    private final RecordEncoder encoder = new RecordEncoder();
    private final List<ScheduledFuture<?>> timers = new ArrayList<>();
    private final AtomicBoolean retentionQueued = new AtomicBoolean();

    private volatile boolean closed;
    /** Set when a failed append could not be rolled back: the file may hold garbage past the committed end. */
    private volatile StorageException writeFailure;

    private SegmentedLog(final Path dir, final LogConfig config, final StorageRuntime runtime,
                         final LogRecovery.Recovered recovered) {
        this.dir = dir;
        this.config = config;
        this.runtime = runtime;
        this.metrics = runtime.metrics();
        this.recoveryReport = recovered.report();
        this.state = new AtomicReference<>(new LogState(recovered.sealed(), recovered.active()));
        this.commit = new GroupCommit(dir, state::get, runtime, recovered.active().nextOffset());
    }

    /**
     * Opens (creating if needed) the log in {@code dir} and runs recovery. Opens only this directory; the
     * caller decides when (lazily, on first use of the shard).
     *
     * @throws StorageException {@link StorageErrorCode#CORRUPTION} when recovery refuses,
     *                          {@link StorageErrorCode#IO} on file errors, {@link StorageErrorCode#CLOSED}
     *                          when the runtime is closed
     */
    public static SegmentedLog open(final Path dir, final LogConfig config, final StorageRuntime runtime) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(runtime, "runtime");
        if (runtime.isClosed()) {
            throw StorageException.of(StorageErrorCode.CLOSED, "storage runtime is closed");
        }
        final LogRecovery.Recovered recovered = LogRecovery.recover(dir, config, runtime);
        final SegmentedLog log = new SegmentedLog(dir, config, runtime, recovered);
        try {
            log.startTimers();
        } catch (final StorageException e) {
            log.closeFiles();
            throw e;
        }
        final RecoveryReport r = recovered.report();
        runtime.metrics().recovery(r.truncatedBytes(), r.abandonedSegmentsRemoved(), r.indexesRebuilt());
        return log;
    }

    private void startTimers() {
        if (config.fsyncPolicy() instanceof FsyncPolicy.Periodic) {
            final FsyncPolicy.Periodic p = (FsyncPolicy.Periodic) config.fsyncPolicy();
            timers.add(runtime.scheduleWithFixedDelay(commit::periodicTick, p.interval()));
        }
        if (config.retentionEnabled()) {
            timers.add(runtime.scheduleWithFixedDelay(this::retentionTick, config.retentionCheckInterval()));
        }
    }

    /** What recovery found and did when this log was opened. */
    public RecoveryReport recoveryReport() {
        return recoveryReport;
    }

    /** The log directory. */
    public Path directory() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Oldest retained offset (equals {@link #tailOffset()} for an empty log). */
    public long baseOffset() {
        return state.get().baseOffset();
    }

    /** The next offset to assign (exclusive end of the log). */
    public long tailOffset() {
        return state.get().active().nextOffset();
    }

    /** Exclusive bound of the records known to be on the device. */
    public long durableOffset() {
        return commit.durableOffset();
    }

    /** Bytes in all segment files. */
    public long sizeBytes() {
        return state.get().totalBytes();
    }

    /** Number of segment files. */
    public int segmentCount() {
        return state.get().segmentCount();
    }

    /** Appends one record; see {@link #append(List, long)}. */
    public AppendResult append(final byte[] payload, final long timestampMicros) {
        return append(Collections.singletonList(payload), timestampMicros);
    }

    /**
     * Appends one batch with contiguous offsets, in one write, never split across segments. Rolls to a new
     * segment first when the batch would push a non-empty active segment past {@link LogConfig#segmentBytes()}
     * (an empty segment accepts any batch, so one oversized record gets a segment of its own). The records
     * are visible to readers when this returns; they are durable once {@link #flush} of
     * {@link AppendResult#nextOffset()} completed.
     *
     * <p>On a write failure (disk full, I/O error) the file is cut back to its last good size and the call
     * fails with {@link StorageErrorCode#IO}; the log stays usable. If even the cut-back fails the log refuses
     * further appends until reopened.
     *
     * @param payloads        one or more payloads, each at most {@link LogConfig#maxPayloadBytes()}
     * @param timestampMicros stored with every record of the batch (retention age uses it)
     * @throws StorageException {@link StorageErrorCode#INVALID_ARGUMENT} (empty batch, null payload),
     *                          {@link StorageErrorCode#RECORD_TOO_LARGE}, {@link StorageErrorCode#IO},
     *                          {@link StorageErrorCode#SYNC_FAILED} (poisoned), {@link StorageErrorCode#CLOSED}
     */
    public AppendResult append(final List<byte[]> payloads, final long timestampMicros) {
        try {
            final long batchBytes = validateBatch(payloads);
            final int n = payloads.size();
            final long first;
            appendLock.lock();
            try {
                checkWritable();
                Segment active = state.get().active();
                if (active.recordCount() > 0 && active.size() + batchBytes > config.segmentBytes()) {
                    active = roll(active);
                }
                first = active.nextOffset();
                final long position = active.size();
                writeBatch(active, payloads, first, timestampMicros, (int) batchBytes, position);
                indexBatch(active, payloads, first, position);
                active.commit(position + batchBytes, first + n, timestampMicros);
            } finally {
                appendLock.unlock();
            }
            metrics.append(n, batchBytes);
            return new AppendResult(first, first + n - 1);
        } catch (final StorageException e) {
            metrics.appendFailure();
            throw e;
        }
    }

    private long validateBatch(final List<byte[]> payloads) {
        if (payloads == null || payloads.isEmpty()) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "append needs at least one payload");
        }
        long bytes = 0;
        for (int i = 0; i < payloads.size(); i++) {
            final byte[] p = payloads.get(i);
            if (p == null) {
                throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "payload " + i + " of the batch is null");
            }
            if (p.length > config.maxPayloadBytes()) {
                throw StorageException.tooLarge(p.length, "payload " + i + " has " + p.length
                    + " bytes; maxPayloadBytes is " + config.maxPayloadBytes());
            }
            bytes += RecordDescriptor.frameLength(p.length);
        }
        final long maxBatch = Math.min(Integer.MAX_VALUE - 64L,
            Math.max(config.segmentBytes(), RecordDescriptor.frameLength(config.maxPayloadBytes())));
        if (bytes > maxBatch) {
            throw StorageException.tooLarge(bytes, "batch of " + bytes + " bytes exceeds the largest allowed batch ("
                + maxBatch + " bytes: max(segmentBytes, one maximal record)); split it");
        }
        return bytes;
    }

    private void checkWritable() {
        if (closed) {
            throw StorageException.of(StorageErrorCode.CLOSED, "log " + dir + " is closed");
        }
        final StorageException w = writeFailure;
        if (w != null) {
            throw w;
        }
        final StorageException f = commit.failure();
        if (f != null) {
            throw f;
        }
    }

    /**
     * Seals {@code active} and makes a new segment active. Appender only (append lock held). Creates the new
     * file and writes its header without forcing anything: the seal's flushes (old data and index, new
     * header, directory entry) run on a flush thread, and no offset of the new segment is reported durable
     * before they completed.
     */
    private Segment roll(final Segment active) {
        final Segment next;
        try {
            next = Segment.create(dir, active.id + 1, active.nextOffset(), runtime.nowMicros(),
                config.indexSpacingBytes(), runtime.opener());
        } catch (final IOException e) {
            throw StorageException.io("could not create segment " + (active.id + 1), SegmentFiles.logPath(dir, active.id + 1), e);
        }
        active.sealed = true;
        state.updateAndGet(s -> s.rolled(next));
        metrics.segmentRolled();
        commit.requestSync();
        return next;
    }

    private void writeBatch(final Segment active, final List<byte[]> payloads, final long first, final long ts,
                            final int batchBytes, final long position) {
        ByteBuffer buf = runtime.staging(batchBytes);
        final boolean staged = buf != null;
        if (!staged) {
            buf = ByteBuffer.allocate(batchBytes);
        }
        buf.limit(batchBytes);
        for (int i = 0; i < payloads.size(); i++) {
            encoder.encode(buf, first + i, ts, payloads.get(i));
        }
        buf.flip();
        try {
            if (staged) {
                active.log.writeFully(buf, position);
            } else {
                // Written in staging-sized chunks so the JDK's per-thread temporary direct buffers stay bounded.
                for (int off = 0; off < batchBytes; off += StorageRuntime.MAX_STAGING_BYTES) {
                    final int len = Math.min(StorageRuntime.MAX_STAGING_BYTES, batchBytes - off);
                    active.log.writeFully(buf.slice(off, len), position + off);
                }
            }
        } catch (final IOException e) {
            rollBack(active, position, e);
        }
    }

    /** After a failed write: cut the file back to its last good size so no partial batch is ever read. */
    private void rollBack(final Segment active, final long position, final IOException cause) {
        try {
            active.log.truncate(position);
        } catch (final IOException t) {
            cause.addSuppressed(t);
            writeFailure = StorageException.io("an append failed and the file could not be cut back to its last good"
                + " size " + position + "; the log refuses writes until it is reopened", active.logPath, cause);
            LOG.error("append to {} failed and could not be rolled back; log refuses writes until reopened",
                active.logPath, cause);
            throw writeFailure;
        }
        throw StorageException.io("append at byte position " + position + " failed; the file was cut back to "
            + position + " and the log is intact", active.logPath, cause);
    }

    private void indexBatch(final Segment active, final List<byte[]> payloads, final long first, final long position) {
        final SparseIndex idx = active.sparse;
        final int before = idx.count();
        long pos = position;
        for (int i = 0; i < payloads.size(); i++) {
            idx.observe(first + i, pos);
            pos += RecordDescriptor.frameLength(payloads.get(i).length);
        }
        final int after = idx.count();
        if (after == before || active.indexDirty) {
            return;
        }
        try {
            active.index.writeFully(IndexFile.encodeEntries(idx, before, after), IndexDescriptor.entryPosition(before));
        } catch (final IOException e) {
            // The index is derived data: the append stands; the file is rewritten from memory when sealed.
            active.indexDirty = true;
            metrics.indexWriteFailure();
            LOG.warn("index write to {} failed; it will be rewritten at seal: {}", active.indexPath, e.toString());
        }
    }

    /**
     * Requests durability of every offset below {@code uptoExclusive}. Concurrent requests share one device
     * flush. The future completes normally only after {@link #durableOffset()} &ge; {@code uptoExclusive}, i.e.
     * after the bytes (and, for a new segment, its header and directory entry) were forced to the device;
     * exceptionally with {@link StorageErrorCode#SYNC_FAILED} if a flush failed, {@link StorageErrorCode#CLOSED}
     * if the log closed first, {@link StorageErrorCode#TRUNCATED} if {@link #truncate} removed the offsets.
     * Dependent actions run on a storage flush thread; attach heavy work with {@code *Async} methods.
     *
     * @param uptoExclusive at most {@link #tailOffset()}; typically {@link AppendResult#nextOffset()}
     */
    public CompletableFuture<Void> flush(final long uptoExclusive) {
        return flush(uptoExclusive, false);
    }

    private CompletableFuture<Void> flush(final long uptoExclusive, final boolean inline) {
        final long tail = tailOffset();
        if (uptoExclusive < 0 || uptoExclusive > tail) {
            return CompletableFuture.failedFuture(StorageException.of(StorageErrorCode.INVALID_ARGUMENT,
                "flush offset " + uptoExclusive + " is outside 0.." + tail + " (the tail)"));
        }
        return commit.flush(uptoExclusive, inline);
    }

    /**
     * Blocks until every offset below {@code uptoExclusive} is durable. When no flush is under way the calling
     * thread performs it itself (sharing it with any concurrent requests), saving two thread hand-offs.
     *
     * @throws StorageException as {@link #flush(long)} completes, or {@link StorageErrorCode#INTERRUPTED}
     */
    public void awaitDurable(final long uptoExclusive) {
        try {
            // An interrupted thread does not lead: its I/O would make the JDK close the shared channel.
            flush(uptoExclusive, !Thread.currentThread().isInterrupted()).get();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw StorageException.of(StorageErrorCode.INTERRUPTED, "interrupted while waiting for offset "
                + uptoExclusive + " of " + dir + " to become durable", e);
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof StorageException) {
                throw (StorageException) e.getCause();
            }
            throw StorageException.of(StorageErrorCode.SYNC_FAILED, "flush of " + dir + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Makes everything appended so far durable, whatever the fsync policy (blocking). */
    public void sync() {
        awaitDurable(tailOffset());
    }

    /**
     * Reads records in offset order starting at {@code fromOffset}. Never skips a record: reading stops at the
     * first record that does not fit the remaining budget, except that at least one record is returned when
     * one exists at {@code fromOffset} (so a record larger than the budget is still readable). Every returned
     * record's checksums were verified.
     *
     * @param fromOffset first offset wanted
     * @param maxRecords at most this many records (also capped by {@link LogConfig#maxRecordsPerRead()})
     * @param maxBytes   payload byte budget
     * @return {@link ReadResult.Trimmed} when {@code fromOffset < baseOffset()}; {@link ReadResult.Records},
     *         empty when {@code fromOffset >= tailOffset()}
     * @throws StorageException {@link StorageErrorCode#CORRUPTION} (naming file and position),
     *                          {@link StorageErrorCode#IO}, {@link StorageErrorCode#CLOSED},
     *                          {@link StorageErrorCode#INVALID_ARGUMENT}
     */
    public ReadResult read(final long fromOffset, final int maxRecords, final long maxBytes) {
        if (fromOffset < 0 || maxRecords <= 0 || maxBytes < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "read(from=" + fromOffset + ", maxRecords="
                + maxRecords + ", maxBytes=" + maxBytes + "): from and maxBytes must be >= 0, maxRecords > 0");
        }
        final int recordLimit = Math.min(maxRecords, config.maxRecordsPerRead());
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw StorageException.of(StorageErrorCode.CLOSED, "log " + dir + " is closed");
            }
            final LogState st = state.get();
            final long tail = st.active().nextOffset(); // before any size: see Segment
            final long base = st.baseOffset();
            if (fromOffset < base) {
                return new ReadResult.Trimmed(fromOffset, base);
            }
            if (fromOffset >= tail) {
                return new ReadResult.Records(List.of(), fromOffset, 0);
            }
            final List<LogRecord> out = new ArrayList<>((int) Math.min(recordLimit, Math.min(tail - fromOffset, 256)));
            final long[] bytes = {0};
            long next = fromOffset;
            for (int i = st.segmentIndexFor(fromOffset); i < st.segmentCount() && next < tail; i++) {
                final Segment seg = st.segment(i);
                final long end = Math.min(seg.nextOffset(), tail);
                if (next >= end) {
                    continue;
                }
                final long got = readSegment(seg, next, end, out, recordLimit, maxBytes, bytes);
                next += got;
                if (next < end) {
                    break; // the budget refused a record: stop the whole read, never skip
                }
            }
            metrics.read(out.size(), bytes[0]);
            return new ReadResult.Records(out, next, bytes[0]);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Reads {@code [from, end)} of one segment into {@code out} within the budget; returns records added. */
    private long readSegment(final Segment seg, final long from, final long end, final List<LogRecord> out,
                             final int recordLimit, final long maxBytes, final long[] bytes) {
        final long limit = seg.size();
        final int k = seg.sparse.floor(from);
        try {
            if (k >= 0) {
                final RecordScanner sc = new RecordScanner(seg.log, seg.sparse.positionAt(k), limit,
                    seg.sparse.offsetAt(k), config.maxPayloadBytes(), RecordScanner.READ_WINDOW_BYTES);
                final long got = collect(seg, sc, from, end, out, recordLimit, maxBytes, bytes, true);
                if (got >= 0) {
                    return got;
                }
            }
            // No entry, or the entry did not lead to a valid record: an index is never trusted, so scan from the
            // segment start. If that scan fails too, the data is bad (collect throws); otherwise the index was.
            final RecordScanner sc = new RecordScanner(seg.log, SegmentHeaderDescriptor.LENGTH, limit, seg.baseOffset,
                config.maxPayloadBytes(), RecordScanner.READ_WINDOW_BYTES);
            final long got = collect(seg, sc, from, end, out, recordLimit, maxBytes, bytes, false);
            if (k >= 0) {
                metrics.indexMismatch();
                LOG.warn("index of {} does not match its segment near offset {}; read by scanning from the segment start",
                    seg.logPath, seg.sparse.offsetAt(k));
            }
            return got;
        } catch (final IOException e) {
            throw StorageException.io("read of offset " + from + " failed", seg.logPath, e);
        }
    }

    /**
     * Scans to {@code from} (headers only) and collects records until {@code end} or the budget. Returns the
     * number collected, or -1 when {@code fromIndex} and the very first record at the index position is bad
     * (the caller then retries from the segment start).
     */
    private long collect(final Segment seg, final RecordScanner sc, final long from, final long end,
                         final List<LogRecord> out, final int recordLimit, final long maxBytes, final long[] bytes,
                         final boolean fromIndex) throws IOException {
        long got = 0;
        boolean first = true;
        while (from + got < end) {
            RecordScanner.Step step = sc.next(false);
            if (step == RecordScanner.Step.RECORD && sc.offset() >= from) {
                final int len = sc.payloadLength();
                if (!out.isEmpty() && (out.size() >= recordLimit || bytes[0] + len > maxBytes)) {
                    return got;
                }
                step = sc.verifyCurrentPayload();
                if (step == RecordScanner.Step.RECORD) {
                    out.add(new LogRecord(sc.offset(), sc.timestampMicros(), sc.copyPayload()));
                    bytes[0] += len;
                    got++;
                    if (out.size() >= recordLimit) {
                        return got;
                    }
                }
            }
            if (step != RecordScanner.Step.RECORD) {
                if (fromIndex && first && step == RecordScanner.Step.FAULT) {
                    return -1;
                }
                final CorruptionKind kind = step == RecordScanner.Step.END ? CorruptionKind.TRUNCATED : sc.fault();
                throw StorageException.corruption(kind, seg.logPath, sc.position(),
                    step == RecordScanner.Step.END ? "segment ends before offset " + (from + got) : sc.faultDetail());
            }
            first = false;
        }
        return got;
    }

    /**
     * Deletes whole sealed segments from the head while the log exceeds {@link LogConfig#retentionBytes()} or
     * the head's newest record is older than {@link LogConfig#retentionAge()} (by the runtime clock). The
     * active segment is never deleted, so a log never shrinks below the records since its last roll. Runs on
     * the runtime's threads every {@link LogConfig#retentionCheckInterval()} when a bound is set; callable at
     * any time. Readers below the new base get {@link ReadResult.Trimmed}.
     */
    public RetentionResult enforceRetention() {
        if (!config.retentionEnabled()) {
            return new RetentionResult(0, 0, baseOffset());
        }
        return removeHead(st -> Retention.victims(st, config, runtime.nowMicros()), "retention");
    }

    /**
     * Deletes every sealed head segment whose records all lie below {@code offset} (its next offset is
     * &le; {@code offset}), oldest first, whatever the retention settings. The active segment is never deleted,
     * and a segment holding {@code offset} or anything after it stays, so afterwards
     * {@code baseOffset() <= offset} still holds whenever it held before. This is the compaction hook of a log
     * whose older records were superseded elsewhere (a cache keeps a snapshot at {@code offset} and trims
     * the log below it). Readers below the new base get {@link ReadResult.Trimmed}; the new base survives a
     * restart. Serialised with retention passes; safe to call concurrently with appends and reads.
     *
     * @param offset keep every record at or after this offset
     * @throws StorageException {@link StorageErrorCode#INVALID_ARGUMENT} for a negative offset,
     *                          {@link StorageErrorCode#CLOSED}, {@link StorageErrorCode#IO} if a segment file
     *                          could not be deleted (as for retention: the segments already left the log)
     */
    public RetentionResult trimBefore(final long offset) {
        if (offset < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "trim offset must be >= 0, got " + offset);
        }
        return removeHead(st -> {
            final List<Segment> out = new ArrayList<>();
            for (final Segment head : st.sealed()) {
                if (head.nextOffset() > offset) {
                    break;
                }
                out.add(head);
            }
            return out;
        }, "trim below offset " + offset);
    }

    /** Removes the sealed head segments {@code pick} selects (oldest first, a prefix of the sealed list). */
    private RetentionResult removeHead(final java.util.function.Function<LogState, List<Segment>> pick,
                                       final String why) {
        retentionLock.lock();
        try {
            final List<Segment> victims;
            lifecycle.writeLock().lock();
            try {
                if (closed) {
                    throw StorageException.of(StorageErrorCode.CLOSED, "log " + dir + " is closed");
                }
                victims = pick.apply(state.get());
                if (victims.isEmpty()) {
                    return new RetentionResult(0, 0, baseOffset());
                }
                final Set<Segment> gone = Collections.newSetFromMap(new IdentityHashMap<>());
                gone.addAll(victims);
                for (final Segment v : victims) {
                    v.deleted = true;
                }
                state.updateAndGet(s -> s.without(gone));
            } finally {
                lifecycle.writeLock().unlock();
            }
            long bytes = 0;
            IOException failed = null;
            for (final Segment v : victims) { // oldest first: a crash midway leaves a contiguous chain
                bytes += v.size();
                try {
                    v.delete();
                } catch (final IOException e) {
                    failed = e;
                }
            }
            metrics.retention(victims.size(), bytes);
            final long base = baseOffset();
            LOG.info("{} removed {} segment(s), {} bytes, from {}; oldest retained offset is now {}",
                why, victims.size(), bytes, dir, base);
            if (failed != null) {
                metrics.retentionFailure();
                throw StorageException.io(why + " could not delete a segment file", dir, failed);
            }
            return new RetentionResult(victims.size(), bytes, base);
        } finally {
            retentionLock.unlock();
        }
    }

    private void retentionTick() {
        if (closed || !retentionQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            runtime.execute(() -> {
                try {
                    enforceRetention();
                } catch (final StorageException e) {
                    if (!closed) {
                        metrics.retentionFailure();
                        LOG.warn("retention of {} failed (retried next interval): {}", dir, e.getMessage());
                    }
                } finally {
                    retentionQueued.set(false);
                }
            });
        } catch (final StorageException closedRuntime) {
            retentionQueued.set(false);
        }
    }

    /**
     * Removes every record at or after {@code offset} (replication: a returning ex-leader drops its divergent
     * tail). No-op when {@code offset >= tailOffset()}. Newer segments are deleted, the segment holding
     * {@code offset} becomes active again and is cut at that record; when {@code offset} is at or below the
     * base, the log restarts empty at {@code offset}. The result is forced to the device before returning;
     * {@link #durableOffset()} is lowered and pending flushes above {@code offset} fail with
     * {@link StorageErrorCode#TRUNCATED}.
     */
    public void truncate(final long offset) {
        if (offset < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "truncate offset must be >= 0, got " + offset);
        }
        appendLock.lock();
        try {
            checkWritable();
            commit.flushLock().lock();
            try {
                lifecycle.writeLock().lock();
                try {
                    LogTruncation.truncate(dir, state, offset, config, runtime);
                    commit.lowerDurable(offset);
                } catch (final IOException e) {
                    writeFailure = StorageException.io("truncate to offset " + offset
                        + " failed midway; the log refuses writes until reopened", dir, e);
                    throw writeFailure;
                } finally {
                    lifecycle.writeLock().unlock();
                }
            } finally {
                commit.flushLock().unlock();
            }
        } finally {
            appendLock.unlock();
        }
        commit.failAbove(offset);
    }

    /**
     * Flushes everything appended (whatever the policy), stops this log's timers and closes its files.
     * Pending flushes complete (or fail with the flush error). Idempotent.
     *
     * @throws StorageException {@link StorageErrorCode#SYNC_FAILED} if the final flush failed (files are
     *                          closed anyway)
     */
    @Override
    public void close() {
        appendLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            appendLock.unlock();
        }
        for (final ScheduledFuture<?> t : timers) {
            t.cancel(false);
        }
        StorageException failure = null;
        if (commit.failure() == null && writeFailure == null) {
            try {
                commit.syncBlocking();
            } catch (final StorageException e) {
                failure = e;
            }
        }
        commit.close();
        closeFiles();
        if (failure != null) {
            throw failure;
        }
    }

    private void closeFiles() {
        lifecycle.writeLock().lock();
        try {
            for (final Segment s : state.get().all()) {
                s.closeQuietly();
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "SegmentedLog{" + dir + ", base=" + baseOffset() + ", tail=" + tailOffset() + ", durable="
            + durableOffset() + '}';
    }
}
