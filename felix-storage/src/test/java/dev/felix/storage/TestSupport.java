package dev.felix.storage;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/** Shared helpers for storage tests. */
final class TestSupport {
    private TestSupport() {
    }

    /** Deterministic payload for {@code offset}: its text, padded to {@code size} bytes with a pattern. */
    static byte[] payload(final long offset, final int size) {
        final byte[] text = ("record-" + offset + "|").getBytes(StandardCharsets.US_ASCII);
        final byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = i < text.length ? text[i] : (byte) ('a' + (offset * 31 + i) % 26);
        }
        return out;
    }

    static List<byte[]> batch(final long firstOffset, final int records, final int size) {
        final List<byte[]> b = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            b.add(payload(firstOffset + i, size));
        }
        return b;
    }

    /** All records of a log, by reading with a generous budget until the tail. */
    static List<LogRecord> readAll(final SegmentedLog log) {
        final List<LogRecord> all = new ArrayList<>();
        long from = log.baseOffset();
        while (from < log.tailOffset()) {
            final List<LogRecord> got = log.read(from, Integer.MAX_VALUE, Long.MAX_VALUE).recordsOrThrow();
            all.addAll(got);
            from += got.size();
        }
        return all;
    }

    static List<Path> segmentFiles(final Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void flipByte(final Path file, final long position) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0x5A));
            b.rewind();
            ch.write(b, position);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void truncateFile(final Path file, final long size) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] read(final Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(final Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Captures log events of {@code type}'s logger until {@link Capture#close()}. */
    static Capture capture(final Class<?> type) {
        return new Capture((Logger) LoggerFactory.getLogger(type));
    }

    static final class Capture implements AutoCloseable {
        private final Logger logger;
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        Capture(final Logger logger) {
            this.logger = logger;
            appender.start();
            logger.addAppender(appender);
        }

        List<ILoggingEvent> events() {
            return List.copyOf(appender.list);
        }

        List<String> messages(final ch.qos.logback.classic.Level level) {
            return appender.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
        }
    }

    /** (offset, position, total length) of every valid record in a segment file. */
    static List<long[]> records(final Path segmentFile) {
        try (SegmentChannel ch = SegmentChannel.open(segmentFile, SegmentChannel.READ_ONLY, SegmentChannel.READ_ONLY,
            ChannelOpener.DEFAULT)) {
            final RecordScanner sc = new RecordScanner(ch, SegmentHeaderDescriptor.LENGTH, ch.size(), -1,
                LogConfig.MAX_PAYLOAD_LIMIT, RecordScanner.SCAN_WINDOW_BYTES);
            final List<long[]> out = new ArrayList<>();
            while (sc.next(true) == RecordScanner.Step.RECORD) {
                out.add(new long[] {sc.offset(), sc.recordPosition(), sc.recordLength()});
            }
            return out;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a directory tree (flat log directory). */
    static void copyDir(final Path from, final Path to) {
        try {
            Files.createDirectories(to);
            try (Stream<Path> s = Files.list(from)) {
                for (final Path p : s.toList()) {
                    Files.copy(p, to.resolve(p.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** File name to content for every file in a directory. */
    static java.util.Map<String, byte[]> snapshot(final Path dir) {
        final java.util.Map<String, byte[]> m = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (final Path p : s.toList()) {
                m.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }
}
