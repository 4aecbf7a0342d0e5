package dev.felix.core.catalog;

import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
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
 * Stream definitions on disk: one small file per stream,
 * {@code ROOT/<tenant>/<namespace>/<stream>.stream}, so a definition is found by name without any
 * index and without reading the others.
 *
 * <p><b>Boot cost does not grow with stored data:</b> nothing is read when the catalog is created;
 * {@link #load} reads one file when a stream is first named, and only {@link #list} walks directories
 * (when an operator asks). Writes are atomic (temporary file, fsync, rename, fsync of the directory).
 *
 * <p>Thread-safe for distinct names; the broker serialises writes of one name.
 */
public final class StreamCatalog {

    /** Suffix of a definition file. */
    static final String SUFFIX = ".stream";

    private final Path root;

    public StreamCatalog(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** The stored definition of {@code name}, if any. */
    public Optional<StreamConfig> load(StreamName name) {
        Path file = file(name);
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read stream definition " + file + ": " + e.getMessage(), e);
        }
        try {
            return Optional.of(decode(p));
        } catch (RuntimeException e) {
            throw new IllegalStateException("stream definition " + file + " is invalid: " + e.getMessage(), e);
        }
    }

    /** Stores (or replaces) the definition of {@code name}, durably. */
    public void store(StreamName name, StreamConfig config) {
        Path file = file(name);
        try {
            Files.createDirectories(file.getParent());
            StringWriter text = new StringWriter();
            encode(config).store(text, "felix stream " + name);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(StandardCharsets.UTF_8.encode(text.toString()));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store stream definition " + file + ": " + e.getMessage(), e);
        }
    }

    /** Names of the stored streams of a tenant (and namespace, if not null), sorted. Walks directories. */
    public List<StreamName> list(String tenant, String namespace) {
        List<StreamName> names = new ArrayList<>();
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
                        String stream = fileName.substring(0, fileName.length() - SUFFIX.length());
                        try {
                            names.add(new StreamName(tenant, nsName, stream));
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

    /** Whether any stream of {@code tenant} (and {@code namespace}, if not null) is stored. */
    public boolean exists(String tenant, String namespace) {
        Path dir = namespace == null ? root.resolve(tenant) : root.resolve(tenant).resolve(namespace);
        return Files.isDirectory(dir);
    }

    private Path file(StreamName name) {
        // Names are restricted to [A-Za-z0-9._-] by StreamName, so they are safe path parts;
        // "." and ".." are rejected there too.
        return root.resolve(name.tenant()).resolve(name.namespace()).resolve(name.stream() + SUFFIX);
    }

    static Properties encode(StreamConfig c) {
        Properties p = new Properties();
        p.setProperty("shards", Integer.toString(c.shards()));
        p.setProperty("durable", Boolean.toString(c.durable()));
        p.setProperty("fsync", c.fsync().wireName());
        p.setProperty("retention_bytes", Long.toString(c.retentionBytes()));
        if (c.retentionAge() != null) {
            p.setProperty("retention_age_ms", Long.toString(c.retentionAge().toMillis()));
        }
        return p;
    }

    static StreamConfig decode(Properties p) {
        String age = p.getProperty("retention_age_ms");
        return new StreamConfig(
                Integer.parseInt(required(p, "shards")),
                Boolean.parseBoolean(required(p, "durable")),
                StreamConfig.Fsync.parse(required(p, "fsync")),
                Long.parseLong(p.getProperty("retention_bytes", "0")),
                age == null ? null : Duration.ofMillis(Long.parseLong(age)));
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IllegalArgumentException("missing '" + key + "'");
        }
        return v;
    }
}
