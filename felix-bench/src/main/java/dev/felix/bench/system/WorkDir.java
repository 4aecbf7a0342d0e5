package dev.felix.bench.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A temporary directory for one peer instance (config, TLS files, data, log), deleted on close. */
final class WorkDir implements AutoCloseable {

    private final Path path;

    private WorkDir(Path path) {
        this.path = path;
    }

    static WorkDir create(String prefix) throws IOException {
        return new WorkDir(Files.createTempDirectory("felix-bench-" + prefix + "-"));
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(path)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
