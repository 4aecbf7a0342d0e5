package dev.felix.storage;

import java.util.List;

/**
 * <b>Immutable; thread-safe; the caller owns the payload arrays.</b>
 *
 * <p>Outcome of {@link SegmentedLog#read}: either the records found ({@link Records}, possibly none when the
 * reader is caught up) or {@link Trimmed} when the requested offset is below the oldest retained one. An
 * expected condition is a value; only corruption and I/O failures throw.
 */
public sealed interface ReadResult permits ReadResult.Records, ReadResult.Trimmed {

    /**
     * Records {@code from .. nextOffset - 1} in offset order, with no gap.
     *
     * @param records      the records; empty when {@code from >= tailOffset()}
     * @param nextOffset   where the next read should start ({@code from + records.size()})
     * @param payloadBytes sum of the returned payload lengths
     */
    record Records(List<LogRecord> records, long nextOffset, long payloadBytes) implements ReadResult {
        public Records {
            records = List.copyOf(records);
        }

        @Override
        public List<LogRecord> recordsOrThrow() {
            return records;
        }
    }

    /**
     * The requested offset existed and is gone (retention or truncation moved the base).
     *
     * @param requested the offset asked for
     * @param oldest    the oldest offset still retained
     */
    record Trimmed(long requested, long oldest) implements ReadResult {
        @Override
        public List<LogRecord> recordsOrThrow() {
            throw StorageException.trimmed(requested, oldest);
        }
    }

    /** The records, or a {@link StorageErrorCode#TRIMMED} exception carrying the oldest retained offset. */
    List<LogRecord> recordsOrThrow();
}
