package dev.felix.core.cache;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.writer.GateFactory;
import dev.felix.storage.LogConfig;
import dev.felix.storage.LogRecord;
import dev.felix.storage.ReadResult;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageErrorCode;
import dev.felix.storage.StorageException;
import dev.felix.storage.StorageRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk side of a log cache: one directory holding the cache's {@link SegmentedLog} (segment files), its
 * snapshots ({@link SnapshotFile}) and {@link CacheMeta}. The log's record offsets are the cache's change
 * offsets: every change is one record ({@link ChangeCodec}).
 *
 * <h2>Directory</h2>
 * <pre>
 * &lt;logs root&gt;/&lt;LogId(tenant, namespace, "cache:" + cache, 0).directoryName()&gt;/
 *     00000000000000000000.log / .index ...   the change log (felix-storage ignores every other name)
 *     snapshot-&lt;offset, 20 digits&gt;.snap       at most {@value #SNAPSHOTS_KEPT} snapshots
 *     cache.meta                              incarnation and clean-shutdown flag
 * </pre>
 * The {@code cache:} prefix cannot collide with a stream: stream names may not contain {@code :}, and the
 * directory name hashes the exact name.
 *
 * <h2>Compaction invariant</h2>
 * The log always reaches back to the oldest kept snapshot (or to offset 0 while fewer than
 * {@value #SNAPSHOTS_KEPT} snapshots exist). So if the newest snapshot turns out unreadable, the older one plus
 * a longer replay still rebuilds the cache exactly; only when every snapshot the log depends on is unreadable
 * does loading fail, with {@code corruption} naming the files. After a new snapshot is durable, snapshots
 * beyond the newest {@value #SNAPSHOTS_KEPT} are deleted, then log segments wholly below the oldest kept
 * snapshot ({@link SegmentedLog#trimBefore}).
 *
 * <h2>Loading</h2>
 * <pre>
 * open the log (recovery: torn tail cut, corruption refused)
 * delete *.snap.tmp (snapshots interrupted before their rename)
 * incarnation: kept if known in this process, or if cache.meta says clean, or under on_commit; else new
 * write cache.meta(clean=false)
 * for each snapshot, newest first: usable if base &lt;= its offset &lt;= tail and it validates;
 *     an invalid one is renamed *.snap.corrupt (kept for inspection, never read again) and the next is tried
 * none usable: start empty at offset 0 if the log still starts at 0, else refuse (corruption)
 * replay the log from the snapshot's offset to the tail
 * </pre>
 *
 * <p><b>Concurrency:</b> confined to the cache's writer, except {@link #writeSnapshot} (an I/O thread; it
 * touches only its own files) and {@link #baseOffset()} (any thread).
 */
final class CacheLog {

    private static final Logger LOG = LoggerFactory.getLogger(CacheLog.class);

    /** Snapshots kept; the log reaches back to the oldest of them. */
    static final int SNAPSHOTS_KEPT = 2;
    /** Suffix given to a snapshot that failed validation. */
    static final String CORRUPT_SUFFIX = ".corrupt";
    /** Records read per step when replaying the log at load. */
    private static final int REPLAY_READ_RECORDS = 4096;
    private static final long REPLAY_READ_BYTES = 8L << 20;

    /** The result of a load. */
    record Opened(long incarnation, long next, long committed, long snapshotOffset, long replayed,
            GateFactory.Opened gate, List<Uncommitted> uncommitted) {
    }

    /**
     * A change the log held past its committed end when it was opened (a replicated cache reopened: only a
     * majority makes it committed). It is staged in the table, not visible; the cache publishes it once its
     * gate commits it.
     */
    record Uncommitted(Change change, EntryTable.Node node) {
    }

    /** Chooses the commit gate of the log just opened (see {@link GateFactory#open}). */
    @FunctionalInterface
    interface GateOpener {
        GateFactory.Opened open(SegmentedLog log) throws FelixException;
    }

    private final String label;
    private final Path dir;
    private final LogConfig logConfig;
    private final StorageRuntime runtime;
    private final boolean onCommit;
    private final SecureRandom random = new SecureRandom();
    private volatile SegmentedLog log;

    CacheLog(String label, Path dir, LogConfig logConfig, StorageRuntime runtime, boolean onCommit) {
        this.label = label;
        this.dir = dir;
        this.logConfig = logConfig;
        this.runtime = runtime;
        this.onCommit = onCommit;
    }

    Path directory() {
        return dir;
    }

    /**
     * Opens the log, asks {@code gates} for its commit gate, and rebuilds the cache into {@code table} (empty, not
     * yet shared): visible up to the committed end, staged (not visible) beyond it. On failure the log is closed
     * again and {@code table} must be discarded.
     *
     * <p>Everything below the restored snapshot counts as committed whatever the gate says: a snapshot is only
     * ever written of visible state.
     *
     * @param knownIncarnation the incarnation this process already gave the cache (a reload after a storage
     *                         failure), or null on the first load
     * @throws FelixException as the gate refuses (this node may not write the log now), or the load fails
     */
    Opened open(Long knownIncarnation, EntryTable table, GateOpener gates) throws FelixException {
        long started = System.nanoTime();
        SegmentedLog opened;
        try {
            opened = SegmentedLog.open(dir, logConfig, runtime);
        } catch (StorageException e) {
            throw toError(e, "cannot open the log of cache " + label).toException();
        }
        GateFactory.Opened gate = null;
        try {
            gate = gates.open(opened);
            deleteTemporaries();
            long incarnation = incarnation(knownIncarnation);
            new CacheMeta(incarnation, false).write(dir);
            long start = restoreSnapshot(opened, table);
            long tail = opened.tailOffset();
            long committed = Math.max(start, Math.min(gate.committed(), tail));
            long replayed = replay(opened, start, committed, table, null);
            List<Uncommitted> uncommitted = new ArrayList<>();
            replayed += replay(opened, committed, tail, table, uncommitted);
            log = opened;
            LOG.debug("loaded cache {}: snapshot at {}, {} changes replayed, committed to {}, next offset {}, {}"
                    + " entries, {} ms", label, start, replayed, committed, tail, table.size(),
                    (System.nanoTime() - started) / 1_000_000);
            return new Opened(incarnation, tail, committed, start, replayed, gate, uncommitted);
        } catch (IOException | UncheckedIOException e) {
            closeQuietly(opened, gate);
            throw FelixError.of(ErrorCode.UNAVAILABLE, "cannot load cache " + label + " from " + dir + ": " + e)
                    .toException();
        } catch (FelixException e) {
            closeQuietly(opened, gate);
            throw e;
        } catch (StorageException e) {
            closeQuietly(opened, gate);
            throw toError(e, "cannot replay the log of cache " + label).toException();
        }
    }

    private long incarnation(Long known) throws IOException {
        if (known != null) {
            return known;
        }
        CacheMeta meta = CacheMeta.read(dir);
        if (meta != null && (meta.clean() || onCommit)) {
            return meta.incarnation();
        }
        if (meta != null) {
            LOG.warn("cache {} was not closed cleanly and its fsync policy may have lost changes that watchers saw;"
                    + " starting a new incarnation (watchers resuming take a fresh snapshot)", label);
        }
        long fresh = random.nextLong() & Long.MAX_VALUE;
        return fresh == 0 ? 1 : fresh;
    }

    /** Loads the newest usable snapshot into {@code table}; returns its offset (0 when none is used). */
    private long restoreSnapshot(SegmentedLog opened, EntryTable table) throws IOException, FelixException {
        List<Long> offsets = snapshotOffsets();
        long base = opened.baseOffset();
        long tail = opened.tailOffset();
        List<String> unusable = new ArrayList<>();
        for (int i = offsets.size() - 1; i >= 0; i--) {
            long offset = offsets.get(i);
            Path file = dir.resolve(SnapshotFile.fileName(offset));
            if (offset < base || offset > tail) {
                unusable.add(file + " (offset " + offset + " is outside the log's " + base + ".." + tail + ")");
                LOG.warn("snapshot {} of cache {} does not match the log (offsets {}..{}); skipped", file, label,
                        base, tail);
                continue;
            }
            SnapshotFile.Contents contents;
            try {
                contents = SnapshotFile.read(file);
            } catch (IllegalArgumentException e) {
                unusable.add(e.getMessage());
                Path aside = file.resolveSibling(file.getFileName() + CORRUPT_SUFFIX);
                LOG.error("{}; moved aside to {}, trying an older snapshot", e.getMessage(), aside);
                Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
                continue;
            }
            if (contents.offset() != offset) {
                unusable.add(file + " (it says offset " + contents.offset() + ")");
                continue;
            }
            for (CacheEntry e : contents.entries()) {
                table.loadPut(table.newNode(e.key(), e.value(), e.expiresAtMillis()));
            }
            return offset;
        }
        if (base == 0) {
            if (!unusable.isEmpty()) {
                LOG.warn("cache {}: no usable snapshot ({}); replaying its whole log", label, unusable);
            }
            return 0;
        }
        throw FelixError.of(ErrorCode.CORRUPTION, "cache " + label + " cannot be loaded: its log starts at offset "
                + base + " and no snapshot it depends on is usable " + unusable + "; the changes below " + base
                + " exist nowhere else").toException();
    }

    /**
     * Applies the changes {@code from..until} to {@code table}: directly (visible) when {@code staged} is null,
     * else staged at their offsets and collected into {@code staged}.
     */
    private long replay(SegmentedLog opened, long from, long until, EntryTable table, List<Uncommitted> staged)
            throws FelixException {
        long next = from;
        while (next < until) {
            ReadResult r = opened.read(next, (int) Math.min(REPLAY_READ_RECORDS, until - next), REPLAY_READ_BYTES);
            if (r instanceof ReadResult.Corrupted c) {
                throw toError(c.toException(), "cache " + label + ": cannot replay its log").toException();
            }
            if (r instanceof ReadResult.Trimmed t) {
                throw FelixError.of(ErrorCode.CORRUPTION, "cache " + label + ": the log no longer holds offset "
                        + next + " (oldest " + t.oldest() + ") that its snapshot needs").toException();
            }
            List<LogRecord> records = ((ReadResult.Records) r).records();
            if (records.isEmpty()) {
                throw FelixError.of(ErrorCode.INTERNAL, "cache " + label + ": the log returned nothing at offset "
                        + next + " below " + until).toException();
            }
            for (LogRecord rec : records) {
                if (rec.offset() >= until) {
                    break;
                }
                Change c = decode(rec);
                if (staged == null) {
                    if (c.op() == Change.Op.PUT) {
                        table.loadPut(table.newNode(c.key(), c.value(), c.expiresAtMillis()));
                    } else {
                        table.loadRemove(c.key());
                    }
                } else if (c.op() == Change.Op.PUT) {
                    EntryTable.Node node = table.newNode(c.key(), c.value(), c.expiresAtMillis());
                    table.stagePut(node, c.offset());
                    staged.add(new Uncommitted(c, node));
                } else {
                    EntryTable.Node old = table.lookup(c.key());
                    if (old != null) {
                        table.stageRemove(old, c.offset());
                    }
                    staged.add(new Uncommitted(c, null));
                }
                next++;
            }
        }
        return next - from;
    }

    /** The open log (writer thread, after {@link #open} succeeded). */
    SegmentedLog log() {
        return log;
    }

    /** Timestamp for appended records. */
    long nowMicros() {
        return runtime.nowMicros();
    }

    /** Completes once every offset below {@code uptoExclusive} is durable (never blocks). */
    CompletableFuture<Void> flush(long uptoExclusive) {
        return log.flush(uptoExclusive);
    }

    /** Blocks until every offset below {@code uptoExclusive} is durable. */
    void awaitDurable(long uptoExclusive) {
        log.awaitDurable(uptoExclusive);
    }

    long durableOffset() {
        return log.durableOffset();
    }

    /** Oldest change a watch may resume from; -1 when not open. Any thread. */
    long baseOffset() {
        SegmentedLog l = log;
        return l == null ? -1 : l.baseOffset();
    }

    int segmentCount() {
        return log.segmentCount();
    }

    /**
     * Writes the snapshot at {@code offset} (I/O thread). The caller made sure every change below
     * {@code offset} is durable in the log first, so the log never ends before a snapshot after a crash.
     */
    void writeSnapshot(long offset, List<EntryTable.Node> nodes, long nowMillis) {
        try {
            SnapshotFile.write(dir, offset, nodes, nowMillis);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write snapshot " + offset + " of cache " + label + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * After the snapshot at {@code offset} is durable: deletes snapshots beyond the newest
     * {@value #SNAPSHOTS_KEPT} and trims the log below the oldest kept one. Returns the log's base offset.
     */
    long afterSnapshot(long offset) throws IOException {
        return CacheSnapshots.retain(dir, log);
    }

    /** Snapshot offsets present in the directory, ascending. */
    List<Long> snapshotOffsets() throws IOException {
        return CacheSnapshots.offsets(dir);
    }

    /**
     * Flushes and closes the log; with {@code clean}, then records a clean shutdown in {@link CacheMeta}.
     * Idempotent; never throws (failures are logged, and an unclean meta only costs watchers a snapshot).
     */
    void close(boolean clean, long incarnation) {
        SegmentedLog l = log;
        log = null;
        if (l == null) {
            return;
        }
        try {
            l.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the log of cache {} failed: {}", label, e.toString());
            return;
        }
        if (clean) {
            try {
                new CacheMeta(incarnation, true).write(dir);
            } catch (IOException e) {
                LOG.warn("cannot record the clean shutdown of cache {}: {}", label, e.toString());
            }
        }
    }

    boolean isOpen() {
        return log != null;
    }

    /** For tests: the open log (to fail it behind the cache's back). */
    SegmentedLog segmentedLog() {
        return log;
    }

    private Change decode(LogRecord rec) throws FelixException {
        try {
            return ChangeCodec.decode(rec.offset(), rec.payload());
        } catch (IllegalArgumentException e) {
            throw FelixError.of(ErrorCode.CORRUPTION, "cache " + label + " (" + dir + "): " + e.getMessage())
                    .toException();
        }
    }

    private void deleteTemporaries() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SnapshotFile.TMP_SUFFIX)) {
            for (Path f : files) {
                LOG.info("removing {}: a snapshot or meta write interrupted before its rename", f);
                Files.deleteIfExists(f);
            }
        }
    }

    /** A failed load: the gate opened for it (a cluster's leadership of the log) goes with the log. */
    private static void closeQuietly(SegmentedLog l, GateFactory.Opened gate) {
        if (gate != null) {
            try {
                gate.gate().close();
            } catch (RuntimeException ignored) {
                // already failing
            }
        }
        closeQuietly(l);
    }

    private static void closeQuietly(SegmentedLog l) {
        try {
            l.close();
        } catch (RuntimeException ignored) {
            // already failing
        }
    }

    /** A storage failure as a Felix error: corruption keeps its code, the rest is unavailability. */
    static FelixError toError(StorageException e, String context) {
        ErrorCode code = e.code() == StorageErrorCode.CORRUPTION ? ErrorCode.CORRUPTION : ErrorCode.UNAVAILABLE;
        return FelixError.of(code, context + ": " + e.getMessage());
    }

    @Override
    public String toString() {
        return "CacheLog[" + label + ", " + dir + "]";
    }
}
