package dev.felix.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/**
 * <b>Implementations must be thread-safe.</b>
 *
 * <p>Opens the {@link FileChannel}s behind segment and index files. The default is {@link FileChannel#open};
 * tests substitute channels that fail on demand (full disk, failing fsync) through
 * {@link StorageRuntime.Builder}'s package-private hook.
 */
@FunctionalInterface
interface ChannelOpener {
    /** The production opener. */
    ChannelOpener DEFAULT = FileChannel::open;

    FileChannel open(Path path, Set<? extends OpenOption> options) throws IOException;
}
