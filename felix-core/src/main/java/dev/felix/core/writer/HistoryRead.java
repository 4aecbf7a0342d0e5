package dev.felix.core.writer;

import dev.felix.core.FelixError;
import dev.felix.storage.LogRecord;
import java.util.List;

/**
 * What a reader behind the tail gets from {@link LogWriter#readHistory}: records, a range that no longer
 * exists (a subscriber is told of it as a gap, a watcher ends), or a failure.
 */
public sealed interface HistoryRead {

    /** Records {@code from} onwards, in offset order, at least one. The caller owns the payload arrays. */
    record Records(List<LogRecord> records) implements HistoryRead {
    }

    /**
     * Offsets {@code from..to} (inclusive) cannot be read, for {@code reason}; reading continues at
     * {@code to + 1}.
     */
    record Missing(long from, long to, Reason reason) implements HistoryRead {
    }

    /** The log could not be read; the message names the shard or cache and the offset. */
    record Failed(FelixError error) implements HistoryRead {
    }

    /** Why a range is missing. */
    enum Reason {
        /** Retention or compaction removed it. */
        RETENTION,
        /** It is damaged on disk (a checksum does not verify) and can never be served. */
        CORRUPTION
    }
}
