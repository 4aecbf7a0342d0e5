package dev.felix.core.cache;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

/**
 * {@code cache.meta} in a log cache's directory: the cache's incarnation and whether it was closed
 * cleanly. Written atomically (temporary file, fsync, rename, fsync of the directory): {@code clean=false}
 * when the cache loads, {@code clean=true} after it closed its log.
 *
 * <p>Why: under {@code periodic} or {@code none} fsync, watchers may have seen changes that a power loss
 * then takes away, and the offsets of those changes would be given to different changes after the restart.
 * A load that finds {@code clean=false} under such a policy therefore starts a new incarnation, and every
 * resume against the old one is refused ({@code cursor_too_old}) so the watcher takes a fresh snapshot.
 * Under {@code on_commit} watchers only ever see durable changes, so the incarnation is kept.
 *
 * @param incarnation the incarnation
 * @param clean       whether the last run closed the cache
 */
record CacheMeta(long incarnation, boolean clean) {

    static final String FILE = "cache.meta";

    /** The stored meta of {@code dir}, or null when there is none (or it cannot be parsed). */
    static CacheMeta read(Path dir) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return null;
        }
        try {
            return new CacheMeta(Long.parseLong(p.getProperty("incarnation")),
                    Boolean.parseBoolean(p.getProperty("clean")));
        } catch (RuntimeException e) {
            return null;
        }
    }

    void write(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("version", "1");
        p.setProperty("incarnation", Long.toString(incarnation));
        p.setProperty("clean", Boolean.toString(clean));
        StringWriter text = new StringWriter();
        p.store(text, "felix cache");
        Path file = dir.resolve(FILE);
        Path tmp = dir.resolve(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(StandardCharsets.UTF_8.encode(text.toString()));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        SnapshotFile.fsyncDirectory(dir);
    }
}
