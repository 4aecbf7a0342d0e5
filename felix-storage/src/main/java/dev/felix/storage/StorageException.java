package dev.felix.storage;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>The one exception type of the storage layer: a stable {@link StorageErrorCode} plus structured fields
 * (file, byte position, requested and oldest offsets, corruption kind, lock holder) so callers branch on data, never on
 * message text. The message is for people: it names the file and byte position for corruption and the
 * setting for configuration errors.
 */
public final class StorageException extends RuntimeException {
    private static final long NONE = Long.MIN_VALUE;

    private final StorageErrorCode code;
    private final CorruptionKind corruption;
    private final Path file;
    private final long position;
    private final long requested;
    private final long oldest;
    private final long holderPid;

    private StorageException(final StorageErrorCode code, final String message, final Throwable cause,
                             final CorruptionKind corruption, final Path file, final long position,
                             final long requested, final long oldest) {
        this(code, message, cause, corruption, file, position, requested, oldest, NONE);
    }

    private StorageException(final StorageErrorCode code, final String message, final Throwable cause,
                             final CorruptionKind corruption, final Path file, final long position,
                             final long requested, final long oldest, final long holderPid) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.corruption = corruption;
        this.file = file;
        this.position = position;
        this.requested = requested;
        this.oldest = oldest;
        this.holderPid = holderPid;
    }

    /** A failure with only a code and a message. */
    public static StorageException of(final StorageErrorCode code, final String message) {
        return new StorageException(code, message, null, null, null, NONE, NONE, NONE);
    }

    /** A failure caused by another exception (usually an {@link java.io.IOException}). */
    public static StorageException of(final StorageErrorCode code, final String message, final Throwable cause) {
        return new StorageException(code, message, cause, null, null, NONE, NONE, NONE);
    }

    /** An I/O failure on {@code file}. */
    public static StorageException io(final String message, final Path file, final Throwable cause) {
        return new StorageException(StorageErrorCode.IO, message + " (" + file + "): " + cause,
            cause, null, file, NONE, NONE, NONE);
    }

    /** A {@link StorageErrorCode#CORRUPTION} error at {@code position} of {@code file}. */
    public static StorageException corruption(final CorruptionKind kind, final Path file, final long position,
                                              final String detail) {
        final String msg = "corrupt log file " + file + " at byte position " + position + ": " + kind
            + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
        return new StorageException(StorageErrorCode.CORRUPTION, msg, null, kind, file, position, NONE, NONE);
    }

    /** A {@link StorageErrorCode#TRIMMED} error: {@code requested} is below the oldest retained offset. */
    public static StorageException trimmed(final long requested, final long oldest) {
        return new StorageException(StorageErrorCode.TRIMMED,
            "offset " + requested + " is no longer retained; the oldest retained offset is " + oldest,
            null, null, null, NONE, requested, oldest);
    }

    /** A {@link StorageErrorCode#RECORD_TOO_LARGE} error for something of {@code size} bytes. */
    public static StorageException tooLarge(final long size, final String message) {
        return new StorageException(StorageErrorCode.RECORD_TOO_LARGE, message, null, null, null, NONE, size, NONE);
    }

    /** An {@link StorageErrorCode#INVALID_CONFIG} error naming {@code setting}. */
    public static StorageException invalidConfig(final String setting, final Object value, final String rule) {
        return new StorageException(StorageErrorCode.INVALID_CONFIG,
            "invalid storage setting " + setting + "=" + value + ": " + rule, null, null, null, NONE, NONE, NONE);
    }

    /**
     * An {@link StorageErrorCode#OFFSET_MISMATCH} error: a write expected to start at {@code requested}, which
     * is not the log's tail (the message names both).
     */
    public static StorageException offsetMismatch(final long requested, final String message) {
        return new StorageException(StorageErrorCode.OFFSET_MISMATCH, message, null, null, null, NONE, requested, NONE);
    }

    /** A {@link StorageErrorCode#STALE_EPOCH} error: {@code epoch} is older than the log's last epoch. */
    public static StorageException staleEpoch(final long epoch, final String message) {
        return new StorageException(StorageErrorCode.STALE_EPOCH, message, null, null, null, NONE, epoch, NONE);
    }

    /**
     * An {@link StorageErrorCode#INVALID_BATCH} error: the record at byte {@code position} of the given bytes
     * failed {@code kind}.
     */
    public static StorageException invalidBatch(final CorruptionKind kind, final long position, final String detail) {
        return new StorageException(StorageErrorCode.INVALID_BATCH, "invalid record batch at byte position " + position
            + " of the given bytes: " + kind + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")")
            + "; nothing was written", null, kind, null, position, NONE, NONE);
    }

    /** A {@link StorageErrorCode#CONCURRENT_WRITER} error about the log in {@code dir}. */
    public static StorageException concurrentWriter(final Path file, final String message) {
        return new StorageException(StorageErrorCode.CONCURRENT_WRITER, message, null, null, file, NONE, NONE, NONE);
    }

    /**
     * A {@link StorageErrorCode#DIRECTORY_LOCKED} error: {@code lockFile} is held by process {@code pid} (or
     * {@code -1} when unknown).
     */
    public static StorageException directoryLocked(final Path lockFile, final long pid, final String message) {
        return new StorageException(StorageErrorCode.DIRECTORY_LOCKED, message, null, null, lockFile, NONE, NONE, NONE,
            pid < 0 ? NONE : pid);
    }

    /** The stable error code. */
    public StorageErrorCode code() {
        return code;
    }

    /** For {@link StorageErrorCode#CORRUPTION}: which validation failed. */
    public Optional<CorruptionKind> corruption() {
        return Optional.ofNullable(corruption);
    }

    /** The file involved, when one is. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** Byte position inside {@link #file()}, for corruption. */
    public OptionalLong position() {
        return position == NONE ? OptionalLong.empty() : OptionalLong.of(position);
    }

    /**
     * The requested offset (for {@link StorageErrorCode#TRIMMED} and {@link StorageErrorCode#OFFSET_MISMATCH}),
     * size (for {@link StorageErrorCode#RECORD_TOO_LARGE}) or epoch (for {@link StorageErrorCode#STALE_EPOCH}).
     */
    public OptionalLong requested() {
        return requested == NONE ? OptionalLong.empty() : OptionalLong.of(requested);
    }

    /** The oldest retained offset, for {@link StorageErrorCode#TRIMMED}. */
    public OptionalLong oldest() {
        return oldest == NONE ? OptionalLong.empty() : OptionalLong.of(oldest);
    }

    /** For {@link StorageErrorCode#DIRECTORY_LOCKED}: the process holding the lock, when it could be read. */
    public OptionalLong holderPid() {
        return holderPid == NONE ? OptionalLong.empty() : OptionalLong.of(holderPid);
    }
}
