package dev.felix.core.metadata;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Small definition files under one root: one properties file per name, {@code ROOT/a/b/c<suffix>}, found by
 * name without any index and without reading the others (so boot cost does not grow with what is stored).
 *
 * <p>Writes are atomic and durable: temporary file, fsync, rename, fsync of the directory; a delete fsyncs the
 * directory too. Thread-safe for distinct names; {@link LocalMetadata} serialises writes.
 */
final class DefinitionFiles {

    private static final String TMP = ".tmp";

    private final Path root;
    private final String suffix;

    DefinitionFiles(Path root, String suffix) {
        this.root = root;
        this.suffix = suffix;
    }

    Path root() {
        return root;
    }

    /** The file of a name; every part must already be a valid name part (no separators, not . or ..). */
    Path file(String... parts) {
        Path p = root;
        for (int i = 0; i < parts.length - 1; i++) {
            p = p.resolve(parts[i]);
        }
        return p.resolve(parts[parts.length - 1] + suffix);
    }

    boolean exists(String... parts) {
        return Files.isRegularFile(file(parts));
    }

    /** Whether the directory {@code ROOT/parts...} exists (something was stored below it). */
    boolean directoryExists(String... parts) {
        return Files.isDirectory(dir(parts));
    }

    /** The directory {@code ROOT/parts...}. */
    private Path dir(String... parts) {
        Path p = root;
        for (String part : parts) {
            p = p.resolve(part);
        }
        return p;
    }

    Optional<Properties> load(String... parts) {
        Path file = file(parts);
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return Optional.of(p);
    }

    void store(Properties content, String comment, String... parts) {
        Path file = file(parts);
        try {
            Files.createDirectories(file.getParent());
            StringWriter text = new StringWriter();
            content.store(text, comment);
            Path tmp = file.resolveSibling(file.getFileName() + TMP);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(StandardCharsets.UTF_8.encode(text.toString()));
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Deletes a definition durably; false if there was none. */
    boolean delete(String... parts) {
        Path file = file(parts);
        try {
            boolean deleted = Files.deleteIfExists(file);
            if (deleted) {
                fsyncDirectory(file.getParent());
            }
            return deleted;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file + ": " + e.getMessage(), e);
        }
    }

    /** Names (without the suffix) of the definitions in directory {@code ROOT/parts...}, sorted. */
    List<String> names(String... parts) {
        Path dir = dir(parts);
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + suffix)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                out.add(name.substring(0, name.length() - suffix.length()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        out.sort(null);
        return out;
    }

    /** Sub-directories of {@code ROOT/parts...}, sorted. */
    List<String> directories(String... parts) {
        Path dir = dir(parts);
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path d : dirs) {
                out.add(d.getFileName().toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        out.sort(null);
        return out;
    }

    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
