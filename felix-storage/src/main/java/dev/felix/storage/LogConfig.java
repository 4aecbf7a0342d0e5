package dev.felix.storage;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * <b>Immutable; thread-safe.</b> Its {@link Builder} is not thread-safe.
 *
 * <p>Settings of one {@link SegmentedLog}. Built with {@link #builder()}; every value is checked when it is
 * set and again as a whole in {@link Builder#build()}, and a bad value fails with
 * {@link StorageErrorCode#INVALID_CONFIG} naming the setting. Retention is off unless a bound is set.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>rule</th></tr>
 *   <tr><td>{@code segmentBytes}</td><td>256 MiB</td><td>&ge; 60 (header + one record header); roll threshold</td></tr>
 *   <tr><td>{@code indexSpacingBytes}</td><td>4096</td><td>&gt; 0; bytes of records between index entries</td></tr>
 *   <tr><td>{@code maxRecordsPerRead}</td><td>10000</td><td>&gt; 0; caps {@code maxRecords} of a read</td></tr>
 *   <tr><td>{@code maxPayloadBytes}</td><td>64 MiB</td><td>1 .. 1 GiB; larger payloads are refused on append and
 *       treated as corruption on read</td></tr>
 *   <tr><td>{@code fsyncPolicy}</td><td>periodic 250 ms</td><td>see {@link FsyncPolicy}</td></tr>
 *   <tr><td>{@code retentionBytes}</td><td>unset</td><td>&gt; 0; keep at most about this many bytes</td></tr>
 *   <tr><td>{@code retentionAge}</td><td>unset</td><td>&gt; 0; drop segments whose newest record is older</td></tr>
 *   <tr><td>{@code retentionCheckInterval}</td><td>60 s</td><td>&gt; 0; how often the runtime enforces retention</td></tr>
 *   <tr><td>{@code verifyAllOnOpen}</td><td>false</td><td>scan every sealed segment fully at open</td></tr>
 *   <tr><td>{@code repairCorruptTail}</td><td>false</td><td>no effect any more (torn and corrupt tails are both cut by
 *       default when no valid record follows)</td></tr>
 * </table>
 */
public final class LogConfig {
    /** Default roll threshold: 256 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 256L * 1024 * 1024;
    /** Default spacing of sparse index entries. */
    public static final int DEFAULT_INDEX_SPACING_BYTES = 4096;
    /** Default cap on records returned by one read. */
    public static final int DEFAULT_MAX_RECORDS_PER_READ = 10_000;
    /** Default payload bound: 64 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = RecordDescriptor.DEFAULT_MAX_PAYLOAD_BYTES;
    /** Upper bound for {@code maxPayloadBytes}: 1 GiB (a record must fit one Java array with its header). */
    public static final int MAX_PAYLOAD_LIMIT = 1024 * 1024 * 1024;
    /** Default retention check interval. */
    public static final Duration DEFAULT_RETENTION_CHECK_INTERVAL = Duration.ofSeconds(60);
    /** Smallest legal segment: a segment header plus one empty record. */
    public static final long MIN_SEGMENT_BYTES = SegmentHeaderDescriptor.LENGTH + RecordDescriptor.HEADER_LENGTH;

    private static final LogConfig DEFAULTS = builder().build();

    private final long segmentBytes;
    private final int indexSpacingBytes;
    private final int maxRecordsPerRead;
    private final int maxPayloadBytes;
    private final FsyncPolicy fsyncPolicy;
    private final long retentionBytes;
    private final Duration retentionAge;
    private final Duration retentionCheckInterval;
    private final boolean verifyAllOnOpen;
    private final boolean repairCorruptTail;

    private LogConfig(final Builder b) {
        this.segmentBytes = b.segmentBytes;
        this.indexSpacingBytes = b.indexSpacingBytes;
        this.maxRecordsPerRead = b.maxRecordsPerRead;
        this.maxPayloadBytes = b.maxPayloadBytes;
        this.fsyncPolicy = b.fsyncPolicy;
        this.retentionBytes = b.retentionBytes;
        this.retentionAge = b.retentionAge;
        this.retentionCheckInterval = b.retentionCheckInterval;
        this.verifyAllOnOpen = b.verifyAllOnOpen;
        this.repairCorruptTail = b.repairCorruptTail;
    }

    /** All defaults: periodic fsync every 250 ms, 256 MiB segments, no retention. */
    public static LogConfig defaults() {
        return DEFAULTS;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        final Builder b = new Builder();
        b.segmentBytes = segmentBytes;
        b.indexSpacingBytes = indexSpacingBytes;
        b.maxRecordsPerRead = maxRecordsPerRead;
        b.maxPayloadBytes = maxPayloadBytes;
        b.fsyncPolicy = fsyncPolicy;
        b.retentionBytes = retentionBytes;
        b.retentionAge = retentionAge;
        b.retentionCheckInterval = retentionCheckInterval;
        b.verifyAllOnOpen = verifyAllOnOpen;
        b.repairCorruptTail = repairCorruptTail;
        return b;
    }

    public long segmentBytes() {
        return segmentBytes;
    }

    public int indexSpacingBytes() {
        return indexSpacingBytes;
    }

    public int maxRecordsPerRead() {
        return maxRecordsPerRead;
    }

    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public FsyncPolicy fsyncPolicy() {
        return fsyncPolicy;
    }

    public OptionalLong retentionBytes() {
        return retentionBytes > 0 ? OptionalLong.of(retentionBytes) : OptionalLong.empty();
    }

    public Optional<Duration> retentionAge() {
        return Optional.ofNullable(retentionAge);
    }

    public Duration retentionCheckInterval() {
        return retentionCheckInterval;
    }

    public boolean verifyAllOnOpen() {
        return verifyAllOnOpen;
    }

    public boolean repairCorruptTail() {
        return repairCorruptTail;
    }

    /** True when a retention bound is set. */
    public boolean retentionEnabled() {
        return retentionBytes > 0 || retentionAge != null;
    }

    @Override
    public String toString() {
        return "LogConfig{segmentBytes=" + segmentBytes + ", indexSpacingBytes=" + indexSpacingBytes
            + ", maxRecordsPerRead=" + maxRecordsPerRead + ", maxPayloadBytes=" + maxPayloadBytes
            + ", fsyncPolicy=" + fsyncPolicy + ", retentionBytes=" + (retentionBytes > 0 ? retentionBytes : "unset")
            + ", retentionAge=" + (retentionAge == null ? "unset" : retentionAge)
            + ", retentionCheckInterval=" + retentionCheckInterval + ", verifyAllOnOpen=" + verifyAllOnOpen
            + ", repairCorruptTail=" + repairCorruptTail + '}';
    }

    /**
     * Builds a {@link LogConfig}. Each setter checks its argument immediately. Not thread-safe.
     */
    public static final class Builder {
        private long segmentBytes = DEFAULT_SEGMENT_BYTES;
        private int indexSpacingBytes = DEFAULT_INDEX_SPACING_BYTES;
        private int maxRecordsPerRead = DEFAULT_MAX_RECORDS_PER_READ;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private FsyncPolicy fsyncPolicy = FsyncPolicy.periodic();
        private long retentionBytes;
        private Duration retentionAge;
        private Duration retentionCheckInterval = DEFAULT_RETENTION_CHECK_INTERVAL;
        private boolean verifyAllOnOpen;
        private boolean repairCorruptTail;

        private Builder() {
        }

        /** Roll to a new segment before a batch that would make the active one exceed this. */
        public Builder segmentBytes(final long bytes) {
            if (bytes < MIN_SEGMENT_BYTES) {
                throw StorageException.invalidConfig("segmentBytes", bytes,
                    "must be >= " + MIN_SEGMENT_BYTES + " (32-byte segment header + 28-byte record header)");
            }
            this.segmentBytes = bytes;
            return this;
        }

        /** Bytes of records between two sparse index entries. */
        public Builder indexSpacingBytes(final int bytes) {
            if (bytes <= 0) {
                throw StorageException.invalidConfig("indexSpacingBytes", bytes, "must be > 0");
            }
            this.indexSpacingBytes = bytes;
            return this;
        }

        /** Upper bound on records returned by one read. */
        public Builder maxRecordsPerRead(final int records) {
            if (records <= 0) {
                throw StorageException.invalidConfig("maxRecordsPerRead", records, "must be > 0");
            }
            this.maxRecordsPerRead = records;
            return this;
        }

        /** Largest accepted payload. Must not be lowered below payloads already stored. */
        public Builder maxPayloadBytes(final int bytes) {
            if (bytes <= 0 || bytes > MAX_PAYLOAD_LIMIT) {
                throw StorageException.invalidConfig("maxPayloadBytes", bytes, "must be in 1.." + MAX_PAYLOAD_LIMIT);
            }
            this.maxPayloadBytes = bytes;
            return this;
        }

        public Builder fsyncPolicy(final FsyncPolicy policy) {
            if (policy == null) {
                throw StorageException.invalidConfig("fsyncPolicy", null, "must be set");
            }
            this.fsyncPolicy = policy;
            return this;
        }

        /** Keep at most about this many bytes (whole sealed segments are dropped from the head). */
        public Builder retentionBytes(final long bytes) {
            if (bytes <= 0) {
                throw StorageException.invalidConfig("retentionBytes", bytes, "must be > 0 (leave unset for unbounded)");
            }
            this.retentionBytes = bytes;
            return this;
        }

        /** Drop sealed segments whose newest record timestamp is older than this. */
        public Builder retentionAge(final Duration age) {
            if (age == null || age.isZero() || age.isNegative()) {
                throw StorageException.invalidConfig("retentionAge", age, "must be > 0 (leave unset for unbounded)");
            }
            this.retentionAge = age;
            return this;
        }

        /** How often the runtime enforces retention for this log (only when a bound is set). */
        public Builder retentionCheckInterval(final Duration interval) {
            if (interval == null || interval.isZero() || interval.isNegative()) {
                throw StorageException.invalidConfig("retentionCheckInterval", interval, "must be > 0");
            }
            this.retentionCheckInterval = interval;
            return this;
        }

        /** Scan every sealed segment in full at open instead of trusting a valid index for all but its tail. */
        public Builder verifyAllOnOpen(final boolean verify) {
            this.verifyAllOnOpen = verify;
            return this;
        }

        /**
         * Kept for compatibility; it no longer changes anything. Every repair it used to allow (a damaged last
         * record of the newest segment) now happens by default: damage in the newest segment after which no valid
         * record follows is a torn tail and is cut (see the recovery table in {@link SegmentedLog}); damage
         * followed by a valid record is never cut.
         */
        public Builder repairCorruptTail(final boolean repair) {
            this.repairCorruptTail = repair;
            return this;
        }

        public LogConfig build() {
            if (retentionAge != null && retentionAge.compareTo(Duration.ofNanos(1000)) < 0) {
                throw StorageException.invalidConfig("retentionAge", retentionAge, "must be at least 1 microsecond");
            }
            return new LogConfig(this);
        }
    }

    @Override
    public boolean equals(final Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LogConfig)) {
            return false;
        }
        final LogConfig c = (LogConfig) o;
        return segmentBytes == c.segmentBytes && indexSpacingBytes == c.indexSpacingBytes
            && maxRecordsPerRead == c.maxRecordsPerRead && maxPayloadBytes == c.maxPayloadBytes
            && retentionBytes == c.retentionBytes && verifyAllOnOpen == c.verifyAllOnOpen
            && repairCorruptTail == c.repairCorruptTail && fsyncPolicy.equals(c.fsyncPolicy)
            && Objects.equals(retentionAge, c.retentionAge) && retentionCheckInterval.equals(c.retentionCheckInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(segmentBytes, indexSpacingBytes, maxRecordsPerRead, maxPayloadBytes, fsyncPolicy,
            retentionBytes, retentionAge, retentionCheckInterval, verifyAllOnOpen, repairCorruptTail);
    }
}
