package dev.felix.storage;

import java.util.Arrays;
import java.util.Objects;

/**
 * <b>Immutable by convention; the caller owns the payload array</b> (a fresh copy per read).
 *
 * <p>One record read from a log.
 * Equality compares payload contents.
 *
 * @param offset          the record's offset
 * @param timestampMicros the timestamp given to the append that wrote it
 * @param payload         the payload bytes
 */
public record LogRecord(long offset, long timestampMicros, byte[] payload) {

    public LogRecord {
        Objects.requireNonNull(payload, "payload");
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof LogRecord && ((LogRecord) o).offset == offset
            && ((LogRecord) o).timestampMicros == timestampMicros && Arrays.equals(((LogRecord) o).payload, payload);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(offset) + Long.hashCode(timestampMicros)) + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "LogRecord{offset=" + offset + ", timestampMicros=" + timestampMicros + ", payload=" + payload.length + " bytes}";
    }
}
