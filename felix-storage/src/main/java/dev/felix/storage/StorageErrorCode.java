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
    INTERRUPTED,
    /** {@link SegmentedLog#appendAt}, {@link SegmentedLog#appendRaw} or {@link SegmentedLog#resetTo} was asked to
     *  write at an offset that is not the log's tail; nothing was written. {@link StorageException#requested()} is
     *  the offset asked for; the message names it and the tail. */
    OFFSET_MISMATCH,
    /** {@link SegmentedLog#beginEpoch} was given an epoch older than the log's last epoch (a stale leader or a
     *  reordered request); nothing was recorded. {@link StorageException#requested()} is the epoch given. */
    STALE_EPOCH,
    /** The bytes given to {@link SegmentedLog#appendRaw} are not a valid run of records;
     *  {@link StorageException#corruption()} says which check failed and {@link StorageException#position()} the
     *  byte position inside the given bytes. Nothing was written. */
    INVALID_BATCH,
    /** Another writer (another {@link SegmentedLog} instance, in this or another process) started writing to this
     *  log's directory; this instance stopped writing (pending flushes and later appends fail) so it cannot
     *  acknowledge records the other one overwrites. Close it; find and stop the other writer. */
    CONCURRENT_WRITER,
    /** {@link DataDirLock#acquire} found the data directory locked by another process (or another lock holder in
     *  this one); {@link StorageException#holderPid()} names the holder when known. */
    DIRECTORY_LOCKED
}
