/**
 * Felix's durable log: one {@link dev.felix.storage.SegmentedLog} per stream shard, in upstream Felix's
 * on-disk format v2.
 *
 * <p><b>Shape.</b> A log is a directory ({@link dev.felix.storage.LogId} names it) of segment files
 * {@code <id>.log} (32-byte header, then records of a 28-byte checksummed header and a payload) with sparse
 * {@code <id>.index} files. Layouts live in the {@code *Descriptor} classes. All logs of a node share one
 * {@link dev.felix.storage.StorageRuntime}: a few flush threads, one timer thread, the clock and the
 * {@link dev.felix.storage.LogMetrics}.
 *
 * <p><b>Concurrency.</b> Appends to a log are serialised by its append lock (one positioned write per
 * batch, never an fsync under that lock). Readers are lock-free with respect to appends: a segment
 * publishes its end of data before its tail offset. Device flushes are group-committed on the runtime's
 * threads ({@code GroupCommit}); segments leave a log (retention, truncation, close) only under an
 * exclusive lifecycle lock that readers share.
 *
 * <p><b>Failure model.</b> Expected conditions are values ({@link dev.felix.storage.ReadResult.Trimmed},
 * {@link dev.felix.storage.ReadResult.Corrupted}); failures are one exception type with stable codes
 * ({@link dev.felix.storage.StorageException}, {@link dev.felix.storage.StorageErrorCode}). Recovery at open cuts
 * a torn tail (damage in the newest segment with no valid record after it), serves around damaged records in
 * sealed segments (reads report the range) and refuses everything else, naming file and byte position.
 *
 * <p><b>Beside the segments.</b> An epoch history ({@code epochs.history}) for replication, a writer history
 * ({@code writers.history}) that exposes two writers on one log, and, per broker, a data directory lock
 * ({@link dev.felix.storage.DataDirLock}). See {@code docs/storage.md}.
 *
 * <p>Only the public types of this package are API; everything package-private may change.
 */
package dev.felix.storage;
