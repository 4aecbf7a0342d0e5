package dev.felix.storage;

import java.nio.file.Path;

/**
 * Child process for {@link DataDirLockTest}: takes the data directory lock, prints {@code LOCKED <pid>} and
 * holds it until killed.
 */
public final class DataDirLockHolderMain {
    private DataDirLockHolderMain() {
    }

    public static void main(final String[] args) throws Exception {
        final DataDirLock lock = DataDirLock.acquire(Path.of(args[0]));
        System.out.println("LOCKED " + lock.pid());
        System.out.flush();
        Thread.currentThread().join(); // hold it until SIGKILL
    }
}
