package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
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
 *   <li>{@link #append} (and {@link #appendAt}, {@link #appendRaw}, {@link #beginEpoch}, {@link #truncate},
 *       {@link #resetTo}) calls from any number of threads are serialised by the <em>append lock</em>; each
 *       call assigns a contiguous offset range, encodes the batch into one buffer and writes it with one
 *       positioned write (batches over {@value StorageRuntime#MAX_STAGING_BYTES} bytes are written in
 *       chunks of that size). A batch never spans segments. The append lock is never held across a device
 *       flush: sealing a segment only queues its flush.</li>
 *   <li>{@link #read} and {@link #readRaw} run concurrently with appends and other reads (shared
 *       <em>lifecycle</em> lock) and
 *       sees only records whose bytes were fully written: an append publishes the new end of data before
 *       the new tail offset.</li>
 *   <li>{@link #flush} never blocks: it returns a future completed on a runtime flush thread once
 *       {@link #durableOffset()} covers the requested offset (see {@link GroupCommit}). Callers acknowledge a
 *       write only after that future completed normally.</li>
 *   <li>{@link #enforceRetention()}, {@link #truncate(long)}, {@link #resetTo(long)} and {@link #close()} take
 *       the lifecycle lock
 *       exclusively for the moment they change the segment list, so reads never see a segment vanish under
 *       them.</li>
 *   <li>The epoch history is read lock-free (an immutable list published through a volatile field) and changed
 *       under the <em>epoch lock</em> (after the append lock when both are held).</li>
 * </ul>
 *
 * <p><b>Ownership.</b> The log owns its files from {@link #open} to {@link #close()}. A second log on the same
 * directory (in this or another process) is a bug that {@link DataDirLock} prevents between brokers; if it
 * happens anyway, the writer history ({@link WriterHistoryDescriptor}) records it: the older writer stops
 * at its next flush pass ({@link StorageErrorCode#CONCURRENT_WRITER}) and {@link LogTools#verify} reports the
 * overlap. Payload arrays passed to the append methods are read during the call only; records returned by
 * {@link #read} own fresh arrays.
 *
 * <p><b>Replication.</b> A follower writes exactly what its leader assigned with {@link #appendAt} (offset and
 * per-record timestamps) or {@link #appendRaw} (stored bytes from the leader's {@link #readRaw}), starts at the
 * leader's base with {@link #resetTo}, cuts a divergent tail with {@link #truncate}, and keeps the epoch history
 * with {@link #beginEpoch} ({@link #epochOf}, {@link #lastEpoch}, {@link #endOffsetOf}).
 *
 * <p><b>Recovery at open</b> (idempotent; see {@link LogRecovery}): segment files are sorted numerically;
 * headers and the offset chain are validated; sealed segments are checked from their last valid index
 * entry (or fully, with {@link LogConfig#verifyAllOnOpen()} or when the index is missing or invalid); the
 * newest segment is always scanned fully and its index rebuilt.
 * <table>
 *   <caption>Damage found at open</caption>
 *   <tr><th>where</th><th>what happens</th></tr>
 *   <tr><td>newest segment, and no valid record follows the damage (a crash mid-write, a zero-filled or garbage
 *       tail)</td><td>torn tail: cut, WARN logged with file, byte position and bytes cut; every record before it
 *       is served</td></tr>
 *   <tr><td>newest segment, and a record whose checksums verify and whose offset continues follows it</td>
 *       <td>refused: {@link StorageErrorCode#CORRUPTION} naming file and byte position</td></tr>
 *   <tr><td>a record in a sealed segment</td><td>served around: the damaged offset range is located, logged
 *       at ERROR, counted, and reads of it return {@link ReadResult.Corrupted}</td></tr>
 *   <tr><td>a segment header; a broken offset chain; a whole record larger than {@code maxPayloadBytes}</td>
 *       <td>refused</td></tr>
 * </table>
 * Damage in a sealed segment before its last index entry is found by the first read that reaches it, with
 * the same outcome.
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

    /** The epoch history; mutated under {@link #epochLock} (taken after the append lock when both are held). */
    private final EpochHistory epochs;
    /** Serialises epoch history mutations: beginEpoch, truncate, resetTo (under the append lock) and retention. */
    private final ReentrantLock epochLock = new ReentrantLock();
    /** This instance's writer session (see {@link WriterHistoryDescriptor}). */
    private final WriterHistory writer;
    /** Guarded by appendLock: the writer session's START is recorded. */
    private boolean sessionStarted;

    private SegmentedLog(final Path dir, final LogConfig config, final StorageRuntime runtime,
                         final LogRecovery.Recovered recovered) {
        this.dir = dir;
        this.config = config;
        this.runtime = runtime;
        this.metrics = runtime.metrics();
        this.recoveryReport = recovered.report();
        this.state = new AtomicReference<>(new LogState(recovered.sealed(), recovered.active()));
        this.epochs = recovered.epochs();
        this.writer = new WriterHistory(dir, runtime::nowMicros);
        this.commit = new GroupCommit(dir, state::get, runtime, recovered.active().nextOffset(),
            () -> writer.check(state.get().active().nextOffset()));
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
        for (final CorruptRange d : recovered.damage()) {
            runtime.metrics().corruptRange(d.count());
        }
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
     *                          {@link StorageErrorCode#SYNC_FAILED} (poisoned), {@link StorageErrorCode#CLOSED},
     *                          {@link StorageErrorCode#CONCURRENT_WRITER}
     */
    public AppendResult append(final List<byte[]> payloads, final long timestampMicros) {
        return appendBatch(-1, payloads == null ? null : PayloadSource.of(payloads), null, timestampMicros);
    }

    /**
     * {@link #append(List, long)} for payloads read where they lie ({@link PayloadSource}): copied into the record
     * layout as they are written, with no array per payload.
     */
    public AppendResult append(final PayloadSource payloads, final long timestampMicros) {
        return appendBatch(-1, payloads, null, timestampMicros);
    }

    /**
     * Appends a batch at an expected first offset with one timestamp per record: what a follower does with
     * records its leader assigned. Exactly like {@link #append(List, long)} (one write, same rolling, visibility,
     * durability and failure rules), except that the batch must start at {@code expectedFirstOffset}.
     *
     * @param expectedFirstOffset must equal {@link #tailOffset()}
     * @param payloads            one or more payloads
     * @param timestampsMicros    one timestamp per payload, stored with it
     * @throws StorageException {@link StorageErrorCode#OFFSET_MISMATCH} when {@code expectedFirstOffset} is not
     *                          the tail (the message names both; nothing is written);
     *                          {@link StorageErrorCode#INVALID_ARGUMENT} when the arrays differ in length; and
     *                          everything {@link #append(List, long)} throws
     */
    public AppendResult appendAt(final long expectedFirstOffset, final List<byte[]> payloads,
                                 final long[] timestampsMicros) {
        if (expectedFirstOffset < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "appendAt offset must be >= 0, got "
                + expectedFirstOffset);
        }
        if (timestampsMicros == null || payloads == null || timestampsMicros.length != payloads.size()) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "appendAt needs one timestamp per payload: "
                + (payloads == null ? "no payloads" : payloads.size() + " payloads") + ", "
                + (timestampsMicros == null ? "no timestamps" : timestampsMicros.length + " timestamps"));
        }
        return appendBatch(expectedFirstOffset, PayloadSource.of(payloads), timestampsMicros, 0);
    }

    /**
     * {@link #appendAt(long, List, long[])} for records as a leader's {@link #read} returned them: their offsets
     * must run contiguously from {@code expectedFirstOffset}; each keeps its timestamp.
     *
     * @throws StorageException {@link StorageErrorCode#INVALID_ARGUMENT} when the records' offsets are not
     *                          {@code expectedFirstOffset, expectedFirstOffset + 1, ...}; as {@code appendAt}
     */
    public AppendResult appendAt(final long expectedFirstOffset, final List<LogRecord> records) {
        if (records == null || records.isEmpty()) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "append needs at least one payload");
        }
        final List<byte[]> payloads = new ArrayList<>(records.size());
        final long[] ts = new long[records.size()];
        for (int i = 0; i < records.size(); i++) {
            final LogRecord r = records.get(i);
            if (r.offset() != expectedFirstOffset + i) {
                throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "record " + i + " of the batch has offset "
                    + r.offset() + ", expected " + (expectedFirstOffset + i) + " (offsets must run contiguously from "
                    + expectedFirstOffset + ")");
            }
            payloads.add(r.payload());
            ts[i] = r.timestampMicros();
        }
        return appendAt(expectedFirstOffset, payloads, ts);
    }

    /**
     * Appends records received as stored bytes (a leader's {@link #readRaw} chunk), written as they are. Every
     * record is validated before anything is written: header CRC, declared length (against
     * {@link LogConfig#maxPayloadBytes()} and the bytes present, before the length is used), checksum, offsets
     * contiguous from {@code expectedFirstOffset}, no trailing bytes. Otherwise as {@link #appendAt}: one write,
     * never split across segments, durable after {@link #flush}.
     *
     * @param expectedFirstOffset must equal {@link #tailOffset()}, and the first record's offset
     * @param records             back-to-back records in the layout of {@link RecordDescriptor}; read during
     *                            the call only
     * @throws StorageException {@link StorageErrorCode#INVALID_BATCH} (with the failed check as
     *                          {@link StorageException#corruption()} and the byte position in {@code records});
     *                          {@link StorageErrorCode#OFFSET_MISMATCH}; {@link StorageErrorCode#RECORD_TOO_LARGE}
     *                          when the run is larger than one batch may be; as {@link #append(List, long)}
     */
    public AppendResult appendRaw(final long expectedFirstOffset, final byte[] records) {
        try {
            final RawBatch batch = RawBatch.validate(records, expectedFirstOffset, config.maxPayloadBytes());
            final long maxBatch = maxBatchBytes();
            if (records.length > maxBatch) {
                throw StorageException.tooLarge(records.length, "raw batch of " + records.length + " bytes exceeds the "
                    + "largest allowed batch (" + maxBatch + " bytes: max(segmentBytes, one maximal record)); split it");
            }
            final int n = batch.count();
            final long first;
            appendLock.lock();
            try {
                checkWritable();
                checkTail(expectedFirstOffset, "appendRaw");
                startSession();
                Segment active = state.get().active();
                if (active.recordCount() > 0 && active.size() + records.length > config.segmentBytes()) {
                    active = roll(active);
                }
                first = active.nextOffset();
                final long position = active.size();
                final ByteBuffer buf = ByteBuffer.wrap(records);
                writeBuffer(active, buf, records.length, position, false);
                final SparseIndex idx = active.sparse;
                final int before = idx.count();
                for (int i = 0; i < n; i++) {
                    idx.observe(first + i, position + batch.positions()[i]);
                }
                persistIndexEntries(active, before);
                active.commit(position + records.length, first + n, batch.lastTimestamp());
            } finally {
                appendLock.unlock();
            }
            metrics.append(n, records.length);
            return new AppendResult(first, first + n - 1);
        } catch (final StorageException e) {
            metrics.appendFailure();
            throw e;
        }
    }

    private AppendResult appendBatch(final long expectedFirst, final PayloadSource payloads, final long[] timestamps,
                                     final long batchTimestamp) {
        try {
            final long batchBytes = validateBatch(payloads);
            final int n = payloads.count();
            final long first;
            appendLock.lock();
            try {
                checkWritable();
                if (expectedFirst >= 0) {
                    checkTail(expectedFirst, "appendAt");
                }
                startSession();
                Segment active = state.get().active();
                if (active.recordCount() > 0 && active.size() + batchBytes > config.segmentBytes()) {
                    active = roll(active);
                }
                first = active.nextOffset();
                final long position = active.size();
                writeBatch(active, payloads, first, timestamps, batchTimestamp, (int) batchBytes, position);
                indexBatch(active, payloads, first, position);
                active.commit(position + batchBytes, first + n, timestamps == null ? batchTimestamp : timestamps[n - 1]);
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

    /** Refuses a write expected at {@code expected} unless that is the tail. Append lock held. */
    private void checkTail(final long expected, final String what) {
        final long tail = state.get().active().nextOffset();
        if (expected != tail) {
            throw StorageException.offsetMismatch(expected, what + " expected to write at offset " + expected
                + " but the tail of " + dir + " is offset " + tail + "; nothing was written");
        }
    }

    /**
     * Records this instance's writer session before its first write (append lock held). A history that cannot
     * be written fails the write that needed it (it is retried by the next one).
     */
    private void startSession() {
        if (sessionStarted) {
            return;
        }
        try {
            writer.start(state.get().active().nextOffset());
        } catch (final IOException e) {
            throw StorageException.io("could not record this writer session in the writer history",
                dir.resolve(WriterHistoryDescriptor.FILE_NAME), e);
        }
        sessionStarted = true;
    }

    private long validateBatch(final PayloadSource payloads) {
        if (payloads == null || payloads.count() == 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "append needs at least one payload");
        }
        long bytes = 0;
        for (int i = 0; i < payloads.count(); i++) {
            final int length = payloads.length(i);
            if (length < 0) {
                throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "payload " + i + " of the batch is null");
            }
            if (length > config.maxPayloadBytes()) {
                throw StorageException.tooLarge(length, "payload " + i + " has " + length
                    + " bytes; maxPayloadBytes is " + config.maxPayloadBytes());
            }
            bytes += RecordDescriptor.frameLength(length);
        }
        final long maxBatch = maxBatchBytes();
        if (bytes > maxBatch) {
            throw StorageException.tooLarge(bytes, "batch of " + bytes + " bytes exceeds the largest allowed batch ("
                + maxBatch + " bytes: max(segmentBytes, one maximal record)); split it");
        }
        return bytes;
    }

    private long maxBatchBytes() {
        return Math.min(Integer.MAX_VALUE - 64L,
            Math.max(config.segmentBytes(), RecordDescriptor.frameLength(config.maxPayloadBytes())));
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

    private void writeBatch(final Segment active, final PayloadSource payloads, final long first, final long[] timestamps,
                            final long batchTimestamp, final int batchBytes, final long position) {
        ByteBuffer buf = runtime.staging(batchBytes);
        final boolean staged = buf != null;
        if (!staged) {
            buf = ByteBuffer.allocate(batchBytes);
        }
        buf.limit(batchBytes);
        for (int i = 0; i < payloads.count(); i++) {
            encoder.encode(buf, first + i, timestamps == null ? batchTimestamp : timestamps[i], payloads, i);
        }
        buf.flip();
        writeBuffer(active, buf, batchBytes, position, staged);
    }

    /** Writes {@code buf} (exactly {@code length} bytes) at {@code position}; rolls back on failure. */
    private void writeBuffer(final Segment active, final ByteBuffer buf, final int length, final long position,
                             final boolean staged) {
        try {
            if (staged || length <= StorageRuntime.MAX_STAGING_BYTES) {
                active.log.writeFully(buf, position);
            } else {
                // Written in staging-sized chunks so the JDK's per-thread temporary direct buffers stay bounded.
                for (int off = 0; off < length; off += StorageRuntime.MAX_STAGING_BYTES) {
                    final int len = Math.min(StorageRuntime.MAX_STAGING_BYTES, length - off);
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

    private void indexBatch(final Segment active, final PayloadSource payloads, final long first, final long position) {
        final SparseIndex idx = active.sparse;
        final int before = idx.count();
        long pos = position;
        for (int i = 0; i < payloads.count(); i++) {
            idx.observe(first + i, pos);
            pos += RecordDescriptor.frameLength(payloads.length(i));
        }
        persistIndexEntries(active, before);
    }

    /** Writes the index entries added since {@code before} (plain write; forced at seal). */
    private void persistIndexEntries(final Segment active, final int before) {
        final SparseIndex idx = active.sparse;
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
     * <p>Damage: a read stops just before a damaged record and returns the intact records before it; a read
     * that starts at (or inside) a damaged range returns {@link ReadResult.Corrupted} with that range, and the
     * read from its {@link ReadResult#nextOffset()} continues after it (see {@link ReadResult}).
     *
     * @param fromOffset first offset wanted
     * @param maxRecords at most this many records (also capped by {@link LogConfig#maxRecordsPerRead()})
     * @param maxBytes   payload byte budget
     * @return {@link ReadResult.Trimmed} when {@code fromOffset < baseOffset()}; {@link ReadResult.Corrupted}
     *         when it lies in a damaged range; {@link ReadResult.Records}, empty when {@code fromOffset >= tailOffset()}
     * @throws StorageException {@link StorageErrorCode#IO}, {@link StorageErrorCode#CLOSED},
     *                          {@link StorageErrorCode#INVALID_ARGUMENT}
     */
    public ReadResult read(final long fromOffset, final int maxRecords, final long maxBytes) {
        checkReadArgs("read", fromOffset, maxRecords, maxBytes);
        final RecordSink sink = new RecordSink(Math.min(maxRecords, config.maxRecordsPerRead()), maxBytes);
        final Object r = readCore(fromOffset, sink);
        if (r instanceof ReadResult.Trimmed) {
            return (ReadResult.Trimmed) r;
        }
        if (r instanceof CorruptRange) {
            return ((CorruptRange) r).toResult(fromOffset);
        }
        metrics.read(sink.count, sink.bytes);
        return new ReadResult.Records(sink.out, (Long) r, sink.bytes);
    }

    /**
     * Reads the stored bytes of whole records from {@code fromOffset} on, exactly as on disk (record headers and
     * payloads, every CRC intact), for shipping to a follower's {@link #appendRaw} without decoding. Same
     * rules as {@link #read} (offset order, never skips, stops before the first record the budget refuses but
     * returns at least one, checksums verified while reading, damage reported as {@link ReadResult.Corrupted}),
     * except that the byte budget counts whole records (28-byte header plus payload).
     *
     * @param maxRecords at most this many records (also capped by {@link LogConfig#maxRecordsPerRead()})
     * @param maxBytes   budget of record bytes
     * @throws StorageException {@link StorageErrorCode#IO}, {@link StorageErrorCode#CLOSED},
     *                          {@link StorageErrorCode#INVALID_ARGUMENT}
     */
    public RawReadResult readRaw(final long fromOffset, final int maxRecords, final long maxBytes) {
        checkReadArgs("readRaw", fromOffset, maxRecords, maxBytes);
        final RawSink sink = new RawSink(Math.min(maxRecords, config.maxRecordsPerRead()), maxBytes);
        final Object r = readCore(fromOffset, sink);
        if (r instanceof ReadResult.Trimmed) {
            return (ReadResult.Trimmed) r;
        }
        if (r instanceof CorruptRange) {
            return ((CorruptRange) r).toResult(fromOffset);
        }
        metrics.read(sink.count, sink.bytes);
        return new RawReadResult.Chunk(fromOffset, (Long) r, sink.count, sink.bytes());
    }

    private static void checkReadArgs(final String what, final long fromOffset, final int maxRecords, final long maxBytes) {
        if (fromOffset < 0 || maxRecords <= 0 || maxBytes < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, what + "(from=" + fromOffset + ", maxRecords="
                + maxRecords + ", maxBytes=" + maxBytes + "): from and maxBytes must be >= 0, maxRecords > 0");
        }
    }

    /**
     * The read walk shared by {@link #read} and {@link #readRaw}: fills {@code sink} from {@code fromOffset}.
     * Returns a {@link ReadResult.Trimmed}, the {@link CorruptRange} the read starts in, or the next offset
     * (a {@code Long}) after the records collected.
     */
    private Object readCore(final long fromOffset, final Sink sink) {
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
            long next = fromOffset;
            for (int i = st.segmentIndexFor(fromOffset); i < st.segmentCount() && next < tail; i++) {
                final Segment seg = st.segment(i);
                final long end = Math.min(seg.nextOffset(), tail);
                if (next >= end) {
                    continue;
                }
                next = readSegment(seg, next, end, sink);
                if (sink.damage != null) {
                    if (sink.count == 0) {
                        return sink.damage; // the read starts in the damaged range
                    }
                    break; // serve what precedes the damage; the next read starts in it
                }
                if (next < end) {
                    break; // the budget refused a record: stop the whole read, never skip
                }
            }
            return next;
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Reads {@code [from, end)} of one segment into {@code sink} within its budget; returns the next offset.
     * On damage at or before the next offset wanted, sets {@code sink.damage} and returns; damage wholly before
     * it is stepped over (reads resume after the range).
     */
    private long readSegment(final Segment seg, final long from, final long end, final Sink sink) {
        final long limit = seg.size();
        final int k = seg.sparse.floor(from);
        long pos = k >= 0 ? seg.sparse.positionAt(k) : SegmentHeaderDescriptor.LENGTH;
        long expected = k >= 0 ? seg.sparse.offsetAt(k) : seg.baseOffset;
        boolean fromIndex = k >= 0;
        long suspectIndexPos = -1;
        long next = from;
        try {
            while (true) {
                final RecordScanner sc = new RecordScanner(seg.log, pos, limit, expected, config.maxPayloadBytes(),
                    RecordScanner.READ_WINDOW_BYTES);
                boolean first = true;
                RecordScanner.Step step = RecordScanner.Step.RECORD;
                while (next < end) {
                    step = sc.next(false);
                    if (step == RecordScanner.Step.RECORD && sc.offset() >= next) {
                        if (sink.refuses(sc.payloadLength())) {
                            return next;
                        }
                        step = sc.verifyCurrentPayload();
                        if (step == RecordScanner.Step.RECORD) {
                            sink.add(sc);
                            next++;
                            if (sink.full()) {
                                return next;
                            }
                        }
                    }
                    if (step != RecordScanner.Step.RECORD) {
                        break;
                    }
                    first = false;
                }
                if (next >= end) {
                    return next;
                }
                if (fromIndex && first && step == RecordScanner.Step.FAULT && !seg.damage.containsKey(sc.position())) {
                    // The entry did not lead to a valid record (and no known damage is there): an index is never
                    // trusted, so scan from the segment start. If the same bytes fail again the data is damaged;
                    // otherwise the index was wrong.
                    suspectIndexPos = pos;
                    fromIndex = false;
                    pos = SegmentHeaderDescriptor.LENGTH;
                    expected = seg.baseOffset;
                    continue;
                }
                final boolean ended = step == RecordScanner.Step.END;
                final SegmentDamage.Located loc = SegmentDamage.forRead(seg, sc.position(), sc.expectedOffset(),
                    ended ? CorruptionKind.TRUNCATED : sc.fault(), ended ? 0 : sc.faultClaimedLength(),
                    ended ? "segment ends before offset " + sc.expectedOffset() : sc.faultDetail(), config.maxPayloadBytes());
                final CorruptRange r = loc.range();
                if (loc.registered()) {
                    metrics.corruptRange(r.count());
                    LOG.error("{}", r.describe());
                }
                if (next <= r.to()) {
                    sink.damage = r;
                    return next;
                }
                if (r.runsToSegmentEnd()) {
                    throw StorageException.corruption(r.kind(), seg.logPath, r.faultPosition(), "offset " + next
                        + " lies past damage that runs to the end of the segment, below its end " + end);
                }
                pos = r.resumePosition();
                expected = r.to() + 1;
                fromIndex = false;
            }
        } catch (final IOException e) {
            throw StorageException.io("read of offset " + from + " failed", seg.logPath, e);
        } finally {
            if (suspectIndexPos >= 0 && !seg.damage.containsKey(suspectIndexPos)) {
                metrics.indexMismatch();
                LOG.warn("index of {} does not match its segment at byte {}; read by scanning from the segment start",
                    seg.logPath, suspectIndexPos);
            }
        }
    }

    /** What a read collects into; one per call, confined to the reading thread. */
    private abstract static class Sink {
        final int recordLimit;
        final long maxBytes;
        int count;
        long bytes;
        CorruptRange damage;

        Sink(final int recordLimit, final long maxBytes) {
            this.recordLimit = recordLimit;
            this.maxBytes = maxBytes;
        }

        /** The budget refuses a record with this payload (never the first one). */
        final boolean refuses(final int payloadLength) {
            return count > 0 && (count >= recordLimit || bytes + cost(payloadLength) > maxBytes);
        }

        final boolean full() {
            return count >= recordLimit;
        }

        /** Budget units one record uses. */
        abstract long cost(int payloadLength);

        /** Takes the scanner's current (verified) record. */
        abstract void add(RecordScanner sc) throws IOException;
    }

    /** {@link #read}: decoded records, payload bytes counted. */
    private static final class RecordSink extends Sink {
        final List<LogRecord> out = new ArrayList<>();

        RecordSink(final int recordLimit, final long maxBytes) {
            super(recordLimit, maxBytes);
        }

        @Override
        long cost(final int payloadLength) {
            return payloadLength;
        }

        @Override
        void add(final RecordScanner sc) throws IOException {
            out.add(new LogRecord(sc.offset(), sc.timestampMicros(), sc.copyPayload()));
            count++;
            bytes += sc.payloadLength();
        }
    }

    /** {@link #readRaw}: stored bytes, whole records counted. */
    private static final class RawSink extends Sink {
        private byte[] buf = new byte[0];

        RawSink(final int recordLimit, final long maxBytes) {
            super(recordLimit, maxBytes);
        }

        @Override
        long cost(final int payloadLength) {
            return RecordDescriptor.frameLength(payloadLength);
        }

        @Override
        void add(final RecordScanner sc) {
            final long len = sc.recordLength();
            if (bytes + len > Integer.MAX_VALUE - 16) {
                throw StorageException.tooLarge(bytes + len, "raw read would exceed one array; lower maxBytes");
            }
            final int need = (int) (bytes + len);
            if (need > buf.length) {
                buf = java.util.Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, 2L * buf.length)));
            }
            sc.copyRecordTo(buf, (int) bytes);
            count++;
            bytes += len;
        }

        byte[] bytes() {
            return buf.length == bytes ? buf : java.util.Arrays.copyOf(buf, (int) bytes);
        }
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
            trimEpochs(base);
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

    /** Drops epoch entries wholly below the new base (keeping the one covering it); best effort. */
    private void trimEpochs(final long base) {
        epochLock.lock();
        try {
            epochs.trimBelow(base);
        } catch (final IOException e) {
            LOG.warn("could not trim the epoch history of {} below offset {} (retried at the next removal): {}", dir,
                base, e.toString());
        } finally {
            epochLock.unlock();
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
     * base, the log restarts empty at {@code offset}. Epoch history entries starting at or after the new tail are
     * dropped. The result is forced to the device before returning; {@link #durableOffset()} is lowered and
     * pending flushes above the new tail fail with {@link StorageErrorCode#TRUNCATED}.
     *
     * <p>When the records just below {@code offset} lie in a damaged range (see {@link ReadResult.Corrupted}) the
     * cut is made where the damage starts, so {@link #tailOffset()} may end below {@code offset}: read it back
     * (a follower then fetches the damaged offsets again from its leader).
     */
    public void truncate(final long offset) {
        if (offset < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "truncate offset must be >= 0, got " + offset);
        }
        long newTail = offset;
        appendLock.lock();
        try {
            checkWritable();
            if (offset >= state.get().active().nextOffset()) {
                return;
            }
            startSession();
            commit.flushLock().lock();
            try {
                lifecycle.writeLock().lock();
                try {
                    newTail = LogTruncation.truncate(dir, state, offset, config, runtime);
                    commit.lowerDurable(newTail);
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
            epochLock.lock();
            try {
                epochs.truncateFrom(newTail);
            } catch (final IOException e) {
                writeFailure = StorageException.io("truncate to offset " + offset + " cut the log but could not rewrite "
                    + "its epoch history; the log refuses writes until reopened (open repairs it)",
                    dir.resolve(EpochHistoryDescriptor.FILE_NAME), e);
                throw writeFailure;
            } finally {
                epochLock.unlock();
            }
        } finally {
            appendLock.unlock();
        }
        commit.failAbove(newTail);
    }

    /**
     * Makes the log start at {@code offset} with nothing in it, and clears the epoch history: a follower whose
     * log is empty, or lies entirely below its leader's base, starts at the leader's base. Every existing
     * record is removed (they all lie below {@code offset}); readers below it get {@link ReadResult.Trimmed}.
     *
     * <p>Crash-safe (protocol in {@link ResetMarkerDescriptor}): a crash at any point leaves either the old log
     * or the new empty one starting at {@code offset}; the next open finishes a reset that reached its commit
     * point. Forced to the device before returning; {@link #durableOffset()} becomes {@code offset}, and
     * flushes still waiting for the removed records fail with {@link StorageErrorCode#TRUNCATED}.
     *
     * @param offset at least {@link #tailOffset()}
     * @throws StorageException {@link StorageErrorCode#OFFSET_MISMATCH} when {@code offset < tailOffset()} (use
     *                          {@link #truncate} to cut back); {@link StorageErrorCode#IO} (the log then refuses
     *                          writes until reopened, and the open finishes or undoes the reset);
     *                          {@link StorageErrorCode#CLOSED}; as for appends
     */
    public void resetTo(final long offset) {
        Runnable failRemoved;
        appendLock.lock();
        try {
            checkWritable();
            final long tail = state.get().active().nextOffset();
            if (offset < tail) {
                throw StorageException.offsetMismatch(offset, "resetTo(" + offset + ") is below the tail " + tail + " of "
                    + dir + "; a reset only moves a log forward (use truncate(" + offset + ") to cut back)");
            }
            startSession();
            commit.flushLock().lock();
            try {
                lifecycle.writeLock().lock();
                try {
                    final LogState st = state.get();
                    final LogReset.Marker marker = new LogReset.Marker(offset, st.active().id + 1);
                    try {
                        LogReset.commit(dir, marker);
                        final Segment fresh = Segment.create(dir, marker.newSegmentId(), offset, runtime.nowMicros(),
                            config.indexSpacingBytes(), runtime.opener());
                        for (final Segment old : st.all()) {
                            old.deleted = true;
                            old.closeQuietly();
                        }
                        state.set(new LogState(List.of(), fresh));
                        fresh.log.force();
                        fresh.syncedSize = fresh.size();
                        SegmentFiles.fsyncDirectory(dir);
                        fresh.dirSynced = true;
                        epochLock.lock();
                        try {
                            LogReset.finish(dir, marker, epochs::clear);
                        } finally {
                            epochLock.unlock();
                        }
                    } catch (final IOException e) {
                        writeFailure = StorageException.io("reset to offset " + offset + " failed midway; the log refuses "
                            + "writes until reopened (the open finishes or undoes the reset)", dir, e);
                        throw writeFailure;
                    }
                    failRemoved = commit.detachAtOrBelow(offset, StorageException.of(StorageErrorCode.TRUNCATED, "log "
                        + dir + " was reset to start at offset " + offset + "; the records a flush waited for were removed"));
                    commit.resetDurable(offset);
                } finally {
                    lifecycle.writeLock().unlock();
                }
            } finally {
                commit.flushLock().unlock();
            }
        } finally {
            appendLock.unlock();
        }
        failRemoved.run();
        LOG.info("log {} reset: it now starts empty at offset {}", dir, offset);
    }

    /**
     * Records that leader epoch {@code epoch} writes the offsets from the current tail on: appends
     * {@code (epoch, tailOffset())} to the epoch history and forces it before returning. Serialised with
     * appends, so the entry's start is exactly the offset the epoch's first record gets.
     *
     * @param epoch &ge; 0; equal to {@link #lastEpoch()}: nothing to do; greater: recorded
     * @throws StorageException {@link StorageErrorCode#STALE_EPOCH} when older than {@link #lastEpoch()};
     *                          {@link StorageErrorCode#INVALID_ARGUMENT} when negative; {@link StorageErrorCode#IO}
     */
    public void beginEpoch(final long epoch) {
        if (epoch < 0) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "epoch must be >= 0, got " + epoch);
        }
        appendLock.lock();
        try {
            checkWritable();
            final long last = epochs.lastEpoch();
            if (epoch == last) {
                return;
            }
            if (epoch < last) {
                throw StorageException.staleEpoch(epoch, "epoch " + epoch + " is older than the last epoch " + last
                    + " of " + dir + "; refusing to record it (a stale leader?)");
            }
            startSession();
            epochLock.lock();
            try {
                epochs.append(epoch, state.get().active().nextOffset());
            } catch (final IOException e) {
                throw StorageException.io("could not record epoch " + epoch, dir.resolve(EpochHistoryDescriptor.FILE_NAME), e);
            } finally {
                epochLock.unlock();
            }
        } finally {
            appendLock.unlock();
        }
    }

    /** The newest epoch recorded by {@link #beginEpoch}, or -1 when none was. */
    public long lastEpoch() {
        return epochs.lastEpoch();
    }

    /**
     * Which epoch wrote {@code offset}: the epoch of the last history entry starting at or before it. Empty when
     * no entry does (the record predates the epoch history), and for offsets outside
     * {@code [baseOffset(), tailOffset())}.
     */
    public OptionalLong epochOf(final long offset) {
        if (offset < baseOffset() || offset >= tailOffset()) {
            return OptionalLong.empty();
        }
        return epochs.epochOf(offset);
    }

    /**
     * The first offset <em>not</em> written by {@code epoch}: the start of the next higher epoch in the history,
     * or {@link #tailOffset()} for the last epoch; for an epoch the log never had, the start of the next higher
     * known epoch. What a leader answers a follower (or ex-leader) asking "where did my epoch end?" (Kafka's
     * OffsetsForLeaderEpoch). {@code -1} when {@code epoch} is newer than {@link #lastEpoch()} (or the history is
     * empty): this log cannot answer, the asker knows more than it does.
     */
    public long endOffsetOf(final long epoch) {
        return epochs.endOffsetOf(epoch, tailOffset());
    }

    /** The epoch history, oldest first (retention may have dropped entries wholly below the base). */
    public List<EpochEntry> epochHistory() {
        return epochs.entries();
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
        writer.end(tailOffset(), failure == null && commit.failure() == null && writeFailure == null);
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
