package dev.felix.core.cache;

import dev.felix.core.QueueLimits;
import dev.felix.core.StreamConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Cache definitions on disk, as {@code catalog.StreamCatalog} keeps streams: one small properties file per
 * cache, {@code ROOT/<tenant>/<namespace>/<cache>.cache}, found by name without an index. Nothing is read
 * until a cache is first named; only {@link #list} walks directories. Writes are atomic (temporary file,
 * fsync, rename, fsync of the directory). Thread-safe for distinct names; {@link Caches} serialises writes.
 */
final class CacheCatalog {

    static final String SUFFIX = ".cache";

    private final Path root;

    CacheCatalog(Path root) {
        this.root = root;
    }

    Optional<CacheConfig> load(CacheName name) {
        Path file = file(name);
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cache definition " + file + ": " + e.getMessage(), e);
        }
        try {
            return Optional.of(decode(p));
        } catch (RuntimeException e) {
            throw new IllegalStateException("cache definition " + file + " is invalid: " + e.getMessage(), e);
        }
    }

    void store(CacheName name, CacheConfig config) {
        Path file = file(name);
        try {
            Files.createDirectories(file.getParent());
            StringWriter text = new StringWriter();
            encode(config).store(text, "felix cache " + name);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(StandardCharsets.UTF_8.encode(text.toString()));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            SnapshotFile.fsyncDirectory(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store cache definition " + file + ": " + e.getMessage(), e);
        }
    }

    /** Stored cache names of a tenant (and namespace, if not null), sorted. Walks directories. */
    List<CacheName> list(String tenant, String namespace) {
        List<CacheName> names = new ArrayList<>();
        Path tenantDir = root.resolve(tenant);
        if (!Files.isDirectory(tenantDir)) {
            return names;
        }
        try (DirectoryStream<Path> namespaces = Files.newDirectoryStream(tenantDir, Files::isDirectory)) {
            for (Path ns : namespaces) {
                String nsName = ns.getFileName().toString();
                if (namespace != null && !namespace.equals(nsName)) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(ns, "*" + SUFFIX)) {
                    for (Path f : files) {
                        String fileName = f.getFileName().toString();
                        try {
                            names.add(new CacheName(tenant, nsName,
                                    fileName.substring(0, fileName.length() - SUFFIX.length())));
                        } catch (IllegalArgumentException ignored) {
                            // not a file this catalog wrote
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + tenantDir + ": " + e.getMessage(), e);
        }
        names.sort((a, b) -> a.toString().compareTo(b.toString()));
        return names;
    }

    private Path file(CacheName name) {
        // CacheName restricts parts to [A-Za-z0-9._-] and rejects "." and "..": safe path parts.
        return root.resolve(name.tenant()).resolve(name.namespace()).resolve(name.cache() + SUFFIX);
    }

    static Properties encode(CacheConfig c) {
        Properties p = new Properties();
        p.setProperty("backing", c.backing().wireName());
        if (c.defaultTtl() != null) {
            p.setProperty("default_ttl_ms", Long.toString(c.defaultTtl().toMillis()));
        }
        p.setProperty("max_entries", Integer.toString(c.maxEntries()));
        p.setProperty("change_ring_events", Integer.toString(c.changeRingEvents()));
        p.setProperty("change_ring_bytes", Long.toString(c.changeRingBytes()));
        p.setProperty("watcher_queue_events", Integer.toString(c.watcherQueue().events()));
        p.setProperty("watcher_queue_bytes", Long.toString(c.watcherQueue().bytes()));
        p.setProperty("writer_queue_events", Integer.toString(c.writerQueue().events()));
        p.setProperty("writer_queue_bytes", Long.toString(c.writerQueue().bytes()));
        p.setProperty("max_value_bytes", Integer.toString(c.maxValueBytes()));
        p.setProperty("fsync", c.fsync().wireName());
        p.setProperty("snapshot_every_changes", Long.toString(c.snapshotEveryChanges()));
        p.setProperty("segment_bytes", Long.toString(c.segmentBytes()));
        return p;
    }

    /** Decodes a definition; settings missing from an older file take today's defaults. */
    static CacheConfig decode(Properties p) {
        CacheConfig d = CacheConfig.defaults();
        String ttl = p.getProperty("default_ttl_ms");
        return new CacheConfig(
                CacheConfig.Backing.parse(required(p, "backing")),
                ttl == null ? null : Duration.ofMillis(Long.parseLong(ttl)),
                intOr(p, "max_entries", d.maxEntries()),
                intOr(p, "change_ring_events", d.changeRingEvents()),
                longOr(p, "change_ring_bytes", d.changeRingBytes()),
                new QueueLimits(intOr(p, "watcher_queue_events", d.watcherQueue().events()),
                        longOr(p, "watcher_queue_bytes", d.watcherQueue().bytes())),
                new QueueLimits(intOr(p, "writer_queue_events", d.writerQueue().events()),
                        longOr(p, "writer_queue_bytes", d.writerQueue().bytes())),
                intOr(p, "max_value_bytes", d.maxValueBytes()),
                StreamConfig.Fsync.parse(p.getProperty("fsync", d.fsync().wireName())),
                longOr(p, "snapshot_every_changes", d.snapshotEveryChanges()),
                longOr(p, "segment_bytes", d.segmentBytes()));
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing '" + key + "'");
        }
        return v;
    }

    private static int intOr(Properties p, String key, int dflt) {
        String v = p.getProperty(key);
        return v == null ? dflt : Integer.parseInt(v);
    }

    private static long longOr(Properties p, String key, long dflt) {
        String v = p.getProperty(key);
        return v == null ? dflt : Long.parseLong(v);
    }
}
