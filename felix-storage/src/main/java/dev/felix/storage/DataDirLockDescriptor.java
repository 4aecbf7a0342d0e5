package dev.felix.storage;

/**
 * <b>Constants only; thread-safe.</b>
 *
 * <p>The data directory lock file {@value #FILE_NAME} ({@link DataDirLock}), format v1: US-ASCII text, one
 * {@code key value} pair per line, so an operator can {@code cat} it. The <em>lock</em> is an OS advisory lock
 * ({@code fcntl}) on the whole file, held by an open file descriptor for the life of the holder: the kernel
 * releases it when the process exits, however it exits ({@code kill -9} included). The text only says who
 * holds it; it is rewritten by every new holder and left in place on release (deleting a lock file on release
 * would let a third process lock an unlinked inode while a second one locks a new file).
 *
 * <pre>
 *  felix-data-dir-lock v1\n        line 1: {@value #FIRST_LINE}
 *  pid 12345\n                     the holder's process id
 *  since 2026-12-02T04:18:41Z\n    when it took the lock (ISO-8601, informational)
 *  dir /abs/path/of/data_dir\n     the directory as the holder resolved it (informational)
 * </pre>
 *
 * Readers take only the first {@link #MAX_READ_BYTES} bytes, ignore unknown keys and treat a missing or
 * unparsable pid as unknown.
 */
final class DataDirLockDescriptor {
    /** The lock file name inside the data directory. */
    static final String FILE_NAME = ".lock";
    /** First line: format name and version. */
    static final String FIRST_LINE = "felix-data-dir-lock v1";
    /** Key of the holder's process id. */
    static final String PID_KEY = "pid";
    /** Key of the time the lock was taken. */
    static final String SINCE_KEY = "since";
    /** Key of the resolved directory. */
    static final String DIR_KEY = "dir";
    /** Bytes read when looking for the holder. */
    static final int MAX_READ_BYTES = 4096;

    private DataDirLockDescriptor() {
    }
}
