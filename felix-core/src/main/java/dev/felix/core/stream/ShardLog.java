package dev.felix.core.stream;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.writer.LogWriter;
import dev.felix.storage.LogConfig;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageException;
import dev.felix.storage.StorageRuntime;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one durable shard, opened lazily by the shard's writer on first use (a node never opens
 * logs at boot "in case"). A log that cannot be opened — corruption anywhere but a torn tail, an I/O
 * error — leaves this shard failed with a typed error naming the file and position; every other
 * stream keeps serving.
 *
 * <p>Writer-thread confined, except {@link #baseOffset()} and {@link #isOpen()}, which any thread may
 * call (the underlying log is thread-safe).
 */
final class ShardLog {

    private static final Logger LOG = LoggerFactory.getLogger(ShardLog.class);

    private final String label;
    private final Path directory;
    private final LogConfig config;
    private final StorageRuntime runtime;
    private volatile SegmentedLog log;
    private FelixError failure;

    ShardLog(String label, Path directory, LogConfig config, StorageRuntime runtime) {
        this.label = label;
        this.directory = directory;
        this.config = config;
        this.runtime = runtime;
    }

    /** Opens the log if it is not open; false (with {@link #failure()} set) if it cannot be. */
    boolean open() {
        if (log != null) {
            return true;
        }
        if (failure != null) {
            return false;
        }
        try {
            long started = System.nanoTime();
            log = SegmentedLog.open(directory, config, runtime);
            LOG.debug("opened log of {} in {} ms", label, (System.nanoTime() - started) / 1_000_000);
            return true;
        } catch (StorageException e) {
            failure = LogWriter.toError(e, "cannot open the log of " + label);
            LOG.error("{}; the shard is unavailable until this is repaired ({}), other streams are unaffected",
                    failure.message(), directory);
            return false;
        } catch (RuntimeException e) {
            failure = FelixError.of(ErrorCode.UNAVAILABLE, "cannot open the log of " + label + ": " + e);
            LOG.error(failure.message(), e);
            return false;
        }
    }

    boolean isOpen() {
        return log != null;
    }

    /** Why the log is unusable, or null. */
    FelixError failure() {
        return failure;
    }

    /** Marks the log unusable after a write or flush failure (the log refuses further appends). */
    void fail(FelixError error) {
        if (failure == null) {
            failure = error;
        }
    }

    long baseOffset() {
        SegmentedLog l = log;
        return l == null ? -1 : l.baseOffset();
    }

    long tailOffset() {
        return log.tailOffset();
    }

    /** The open log (writer thread, after {@link #open()} succeeded). */
    SegmentedLog log() {
        return log;
    }

    long nowMicros() {
        return runtime.nowMicros();
    }

    /**
     * Closes the log but leaves this shard able to open it again (its writer may not write it now: another
     * node leads the shard). Writer thread.
     */
    void release() {
        close();
        log = null;
    }

    /** Flushes what the policy owes and closes; idempotent. */
    void close() {
        SegmentedLog l = log;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the log of {} failed: {}", label, e.toString());
            }
        }
    }

}
