package dev.felix.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * <b>Immutable; thread-safe; the caller owns the payload arrays.</b>
 *
 * <p>Outcome of {@link SegmentedLog#read}: the records found ({@link Records}, possibly none when the reader is
 * caught up), {@link Trimmed} when the requested offset is below the oldest retained one, or {@link Corrupted}
 * when the requested offset lies in a damaged range of the log. Expected conditions are values; only I/O
 * failures (and a closed log) throw.
 *
 * <p><b>Consuming it.</b> Every variant has {@link #nextOffset()}, the offset the next read should ask for, so a
 * reader loops {@code from = result.nextOffset()} and reports what it skipped:
 * <pre>{@code
 * ReadResult r = log.read(from, 500, 1 << 20);
 * if (r instanceof ReadResult.Records rec) {
 *     deliver(rec.records());                       // from .. rec.nextOffset() - 1, no gap
 * } else if (r instanceof ReadResult.Trimmed t) {
 *     gap(from, t.oldest() - 1, "retention");       // gone by retention or truncation
 * } else if (r instanceof ReadResult.Corrupted c) {
 *     gap(c.from(), c.to(), "corruption");          // damaged on disk: cannot be served, ever
 * }
 * from = r.nextOffset();
 * }</pre>
 *
 * <p><b>Damage.</b> When a read reaches a damaged record (a checksum or header that does not verify in a
 * sealed segment, or damage found in the active one after open), every intact record before it is still
 * returned as {@link Records} (ending just before the damage), and the read that starts at (or inside) the
 * damaged range returns {@link Corrupted} with the inclusive range that cannot be served; reading on from
 * {@link Corrupted#nextOffset()} ({@code to + 1}) returns the records after the damage. The range is found
 * once (by the next record whose checksums verify and whose offset continues the log), logged once at ERROR
 * with file and byte position, and counted once in {@link LogMetrics#corruptRanges()}; later reads reuse it.
 */
public sealed interface ReadResult permits ReadResult.Records, ReadResult.Trimmed, ReadResult.Corrupted {

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
     * The requested offset existed and is gone (retention, truncation or a reset moved the base).
     *
     * @param requested the offset asked for
     * @param oldest    the oldest offset still retained
     */
    record Trimmed(long requested, long oldest) implements ReadResult, RawReadResult {
        @Override
        public List<LogRecord> recordsOrThrow() {
            throw StorageException.trimmed(requested, oldest);
        }

        /** {@link #oldest()}: reading on from there serves the oldest retained record. */
        @Override
        public long nextOffset() {
            return oldest;
        }
    }

    /**
     * Offsets {@code from..to} (inclusive) are damaged on disk and cannot be served; the records before
     * {@code from} were returned by earlier reads, the read from {@link #nextOffset()} continues after the damage.
     *
     * @param from     the offset asked for (at or inside the damaged range)
     * @param to       the last offset of the damaged range
     * @param file     the segment file holding the damage
     * @param position byte position of the damage in {@code file}
     * @param kind     the check that failed
     * @param detail   what the check saw, for people
     */
    record Corrupted(long from, long to, Path file, long position, CorruptionKind kind, String detail)
        implements ReadResult, RawReadResult {
        public Corrupted {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(kind, "kind");
            if (to < from) {
                throw new IllegalArgumentException("damaged range " + from + ".." + to + " is empty");
            }
        }

        /** {@code to + 1}: where reading continues. */
        @Override
        public long nextOffset() {
            return to + 1;
        }

        /** Offsets in the range. */
        public long count() {
            return to - from + 1;
        }

        /** Throws the {@link StorageErrorCode#CORRUPTION} error this range stands for (file and position named). */
        @Override
        public List<LogRecord> recordsOrThrow() {
            throw toException();
        }

        /** The {@link StorageErrorCode#CORRUPTION} error for this range. */
        public StorageException toException() {
            return StorageException.corruption(kind, file, position, detail + "; offsets " + from + ".." + to
                + " cannot be served, reads continue at offset " + (to + 1));
        }
    }

    /** The records, or a {@link StorageErrorCode#TRIMMED} / {@link StorageErrorCode#CORRUPTION} exception. */
    List<LogRecord> recordsOrThrow();

    /** The offset the next read should start at. */
    long nextOffset();
}
