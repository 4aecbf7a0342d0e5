package dev.felix.storage;

/**
 * <b>Immutable; thread-safe.</b>
 *
 * <p>Stable codes for every failure the storage layer reports. The names are part of the API:
 * the server maps them to wire error codes and metrics labels, so they never change meaning.
 */
public enum StorageErrorCode {
    /** On-disk bytes fail validation (bad magic/version/flags, CRC mismatch, broken offset chain, torn
     *  record outside the repairable tail). {@link StorageException#corruption()} says which check failed. */
    CORRUPTION,
    /** A read asked for an offset below the oldest retained one; {@link StorageException#oldest()} names it. */
    TRIMMED,
    /** The requested offsets were removed by {@link SegmentedLog#truncate(long)} before they became durable. */
    TRUNCATED,
    /** An I/O operation failed; on append the log was rolled back to its last good size. */
    IO,
    /** A device flush failed. The write may have happened but durability is not confirmed; the log refuses
     *  further appends and flushes until it is reopened (recovery then decides from what is on disk). */
    SYNC_FAILED,
    /** A {@link LogConfig} or {@link StorageRuntime} setting is out of range; the message names the setting. */
    INVALID_CONFIG,
    /** A method argument is out of range (empty batch, negative offset, flush beyond the tail, ...). */
    INVALID_ARGUMENT,
    /** The log (or its runtime) was closed. */
    CLOSED,
    /** A payload (or a whole batch) is larger than the configured bound; {@link StorageException#requested()} is its size. */
    RECORD_TOO_LARGE,
    /** The calling thread was interrupted while blocked waiting for durability; its interrupt flag is restored. */
    INTERRUPTED
}
