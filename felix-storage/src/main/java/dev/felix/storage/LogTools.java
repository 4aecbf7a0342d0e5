package dev.felix.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * <b>Stateless; thread-safe; read-only on disk.</b>
 *
 * <p>Read-only inspection and verification of log directories, for operators and the {@code felix} CLI. Both
 * accept a single log directory or a root holding many; both open files read-only, never write, never
 * repair, and report damage instead of throwing, so they work on exactly the logs that refuse to open.
 *
 * <p>Stateless and thread-safe. Do not point them at a log another process is appending to if you want a
 * stable answer: they read whatever is on disk at the moment.
 */
public final class LogTools {
    /** Payload bound used when decoding: the largest a {@link LogConfig} may allow. */
    private static final int TOOL_MAX_PAYLOAD = LogConfig.MAX_PAYLOAD_LIMIT;

    private LogTools() {
    }

    /**
     * One segment as found on disk.
     *
     * @param file         the {@code .log} file
     * @param segmentId    the number in its name
     * @param baseOffset   base offset from its header (-1 if the header is unreadable)
     * @param lastOffset   offset of its last readable record (-1 if none)
     * @param recordCount  readable records
     * @param bytes        file length
     * @param indexEntries whole entries in its {@code .index} file (0 if missing)
     * @param problem      why reading stopped early, if it did
     */
    public record SegmentInfo(Path file, long segmentId, long baseOffset, long lastOffset, long recordCount,
                              long bytes, long indexEntries, Optional<String> problem) {
    }

    /**
     * One log directory.
     *
     * @param directory the directory
     * @param segments  its segments, oldest first
     */
    public record LogInfo(Path directory, List<SegmentInfo> segments) {
        /** Base offset of the first segment, or -1. */
        public long baseOffset() {
            return segments.isEmpty() ? -1 : segments.get(0).baseOffset();
        }

        /** One past the last readable offset, or -1. */
        public long tailOffset() {
            for (int i = segments.size() - 1; i >= 0; i--) {
                final SegmentInfo s = segments.get(i);
                if (s.lastOffset() >= 0) {
                    return s.lastOffset() + 1;
                }
                if (s.baseOffset() >= 0) {
                    return s.baseOffset();
                }
            }
            return -1;
        }

        public long records() {
            return segments.stream().mapToLong(SegmentInfo::recordCount).sum();
        }

        public long bytes() {
            return segments.stream().mapToLong(SegmentInfo::bytes).sum();
        }
    }

    /** Result of {@link #inspect}. */
    public record Inspection(List<LogInfo> logs) {
        /** A plain-text table, one line per segment. */
        public String render() {
            final StringBuilder sb = new StringBuilder();
            for (final LogInfo log : logs) {
                sb.append(log.directory()).append(": ").append(log.segments().size()).append(" segment(s), offsets ")
                    .append(log.baseOffset()).append("..").append(log.tailOffset()).append(" (exclusive), ")
                    .append(log.records()).append(" records, ").append(log.bytes()).append(" bytes\n");
                sb.append(String.format("  %-26s %14s %14s %10s %12s %8s  %s%n", "file", "base", "last", "records",
                    "bytes", "index", "note"));
                for (final SegmentInfo s : log.segments()) {
                    sb.append(String.format("  %-26s %14d %14d %10d %12d %8d  %s%n", s.file().getFileName(),
                        s.baseOffset(), s.lastOffset(), s.recordCount(), s.bytes(), s.indexEntries(),
                        s.problem().orElse("")));
                }
            }
            return sb.toString();
        }
    }

    /**
     * One finding of {@link #verify}.
     *
     * @param file     the file
     * @param position byte position in it
     * @param code     a {@link CorruptionKind} name, {@code IO_ERROR}, or for index findings {@code INDEX}
     * @param message  what is wrong
     */
    public record Problem(Path file, long position, String code, String message) {
        @Override
        public String toString() {
            return file + " @" + position + " " + code + ": " + message;
        }
    }

    /**
     * Result of {@link #verify}.
     *
     * @param problems    data problems: each makes the log unclean
     * @param indexIssues index files that are missing or wrong (derived data, rebuilt at open; not unclean)
     * @param logs        log directories checked
     * @param segments    segment files checked
     * @param records     records whose checksums passed
     * @param bytes       bytes read
     */
    public record Verification(List<Problem> problems, List<Problem> indexIssues, int logs, int segments,
                               long records, long bytes) {
        /** True when every header and record checksum passed and offsets are contiguous. */
        public boolean clean() {
            return problems.isEmpty();
        }

        /** Plain text: a summary line, then one line per finding. */
        public String render() {
            final StringBuilder sb = new StringBuilder();
            sb.append(clean() ? "CLEAN" : "CORRUPT").append(": ").append(logs).append(" log(s), ").append(segments)
                .append(" segment(s), ").append(records).append(" records, ").append(bytes).append(" bytes checked, ")
                .append(problems.size()).append(" problem(s), ").append(indexIssues.size()).append(" index issue(s)\n");
            for (final Problem p : problems) {
                sb.append("  ").append(p).append('\n');
            }
            for (final Problem p : indexIssues) {
                sb.append("  ").append(p).append('\n');
            }
            return sb.toString();
        }
    }

    /**
     * Lists the segments of a log directory, or of every log directory under a root: base and last offsets,
     * record counts (record headers are verified, payloads are not), sizes and index entries.
     *
     * @throws StorageException {@link StorageErrorCode#INVALID_ARGUMENT} when {@code path} is not a directory
     */
    public static Inspection inspect(final Path path) {
        final List<LogInfo> logs = new ArrayList<>();
        for (final Path dir : logDirectories(path)) {
            final List<SegmentInfo> segments = new ArrayList<>();
            for (final long id : ids(dir)) {
                segments.add(inspectSegment(dir, id));
            }
            logs.add(new LogInfo(dir, List.copyOf(segments)));
        }
        return new Inspection(List.copyOf(logs));
    }

    private static SegmentInfo inspectSegment(final Path dir, final long id) {
        final Path file = SegmentFiles.logPath(dir, id);
        long base = -1;
        long last = -1;
        long count = 0;
        long bytes = -1;
        String problem = null;
        try (SegmentChannel ch = openReadOnly(file)) {
            bytes = ch.size();
            final SegmentHeader.Decoded h = readHeader(ch, bytes);
            if (h instanceof SegmentHeader.Invalid) {
                problem = "header: " + ((SegmentHeader.Invalid) h).kind() + " (" + ((SegmentHeader.Invalid) h).detail() + ")";
            } else {
                base = ((SegmentHeader.Valid) h).header().baseOffset();
                final RecordScanner sc = new RecordScanner(ch, SegmentHeaderDescriptor.LENGTH, bytes, base,
                    TOOL_MAX_PAYLOAD, RecordScanner.SCAN_WINDOW_BYTES);
                RecordScanner.Step step;
                while ((step = sc.next(false)) == RecordScanner.Step.RECORD) {
                    last = sc.offset();
                    count++;
                }
                if (step == RecordScanner.Step.FAULT) {
                    problem = "stopped at byte " + sc.position() + ": " + sc.fault() + " (" + sc.faultDetail() + ")";
                }
            }
        } catch (final IOException e) {
            problem = "unreadable: " + e;
        }
        return new SegmentInfo(file, id, base, last, count, bytes, indexEntries(SegmentFiles.indexPath(dir, id)),
            Optional.ofNullable(problem));
    }

    private static long indexEntries(final Path index) {
        try {
            if (!Files.isRegularFile(index)) {
                return 0;
            }
            final long size = Files.size(index);
            return size < IndexDescriptor.HEADER_LENGTH ? 0 : (size - IndexDescriptor.HEADER_LENGTH) / IndexDescriptor.ENTRY_LENGTH;
        } catch (final IOException e) {
            return 0;
        }
    }

    /**
     * Checks every segment header and record checksum, offset continuity within and across segments, and
     * that index entries point at the records they name. Lists each problem with file and byte position;
     * continues past a bad record when its header CRC still vouches for its length.
     *
     * @throws StorageException {@link StorageErrorCode#INVALID_ARGUMENT} when {@code path} is not a directory
     */
    public static Verification verify(final Path path) {
        final List<Problem> problems = new ArrayList<>();
        final List<Problem> indexIssues = new ArrayList<>();
        final List<Path> dirs = logDirectories(path);
        int segments = 0;
        final long[] totals = new long[2]; // records, bytes
        for (final Path dir : dirs) {
            long expected = -1;
            final List<Long> ids = ids(dir);
            for (int i = 0; i < ids.size(); i++) {
                segments++;
                expected = verifySegment(dir, ids.get(i), expected, i == ids.size() - 1, problems, indexIssues, totals);
            }
        }
        return new Verification(List.copyOf(problems), List.copyOf(indexIssues), dirs.size(), segments, totals[0], totals[1]);
    }

    /** Verifies one segment; returns the offset the next segment must start at, or -1 if unknown. */
    private static long verifySegment(final Path dir, final long id, final long expected, final boolean newest,
                                      final List<Problem> problems, final List<Problem> indexIssues, final long[] totals) {
        final Path file = SegmentFiles.logPath(dir, id);
        try (SegmentChannel ch = openReadOnly(file)) {
            final long length = ch.size();
            final SegmentHeader.Decoded h = readHeader(ch, length);
            if (h instanceof SegmentHeader.Invalid) {
                final SegmentHeader.Invalid bad = (SegmentHeader.Invalid) h;
                problems.add(new Problem(file, 0, bad.kind().name(), "segment header: " + bad.detail()));
                return -1;
            }
            final long base = ((SegmentHeader.Valid) h).header().baseOffset();
            if (expected >= 0 && base != expected) {
                problems.add(new Problem(file, SegmentHeaderDescriptor.BASE_OFFSET_OFFSET, CorruptionKind.OFFSET_OUT_OF_ORDER.name(),
                    "segment base offset " + base + " does not continue the previous segment (expected " + expected + ")"));
            }
            final IndexCheck index = IndexCheck.open(dir, id, base, length, indexIssues);
            final RecordScanner sc = new RecordScanner(ch, SegmentHeaderDescriptor.LENGTH, length, base,
                TOOL_MAX_PAYLOAD, RecordScanner.SCAN_WINDOW_BYTES);
            long next = base;
            boolean intact = true;
            while (true) {
                final RecordScanner.Step step = sc.next(true);
                if (step == RecordScanner.Step.END) {
                    break;
                }
                if (step == RecordScanner.Step.RECORD) {
                    totals[0]++;
                    index.record(sc.offset(), sc.recordPosition());
                    next = sc.offset() + 1;
                    continue;
                }
                final CorruptionKind kind = sc.fault();
                final boolean tornTail = newest && kind == CorruptionKind.TRUNCATED;
                problems.add(new Problem(file, sc.position(), kind.name(), sc.faultDetail()
                    + (tornTail ? " (torn tail of the newest segment: open repairs it)" : "")));
                if (kind == CorruptionKind.RECORD_CHECKSUM || kind == CorruptionKind.OFFSET_OUT_OF_ORDER) {
                    sc.skipFaulted(); // the header CRC passed, so the length is trustworthy
                    next = sc.expectedOffset();
                    continue;
                }
                intact = false;
                break;
            }
            totals[1] += intact ? length : sc.position();
            index.finish();
            return intact ? next : -1;
        } catch (final IOException e) {
            problems.add(new Problem(file, 0, "IO_ERROR", e.toString()));
            return -1;
        }
    }

    /** Merges index entries against scanned records without holding more than the entries in memory. */
    private static final class IndexCheck {
        private final Path file;
        private final long[] entries;
        private final List<Problem> issues;
        private int next;

        private IndexCheck(final Path file, final long[] entries, final List<Problem> issues) {
            this.file = file;
            this.entries = entries;
            this.issues = issues;
        }

        static IndexCheck open(final Path dir, final long id, final long base, final long segmentLength,
                               final List<Problem> issues) {
            final Path file = SegmentFiles.indexPath(dir, id);
            if (!Files.isRegularFile(file)) {
                issues.add(new Problem(file, 0, "INDEX", "missing (rebuilt at open)"));
                return new IndexCheck(file, new long[0], issues);
            }
            try (SegmentChannel ch = openReadOnly(file)) {
                final IndexFile.Loaded loaded = IndexFile.load(ch, ch.size(), base, segmentLength);
                if (!loaded.usable()) {
                    issues.add(new Problem(file, 0, "INDEX", loaded.problem() + " (rebuilt at open)"));
                    return new IndexCheck(file, new long[0], issues);
                }
                return new IndexCheck(file, loaded.entries(), issues);
            } catch (final IOException e) {
                issues.add(new Problem(file, 0, "INDEX", "unreadable: " + e));
                return new IndexCheck(file, new long[0], issues);
            }
        }

        void record(final long offset, final long position) {
            while (next < entries.length / 2 && entries[2 * next] < offset) {
                bad("no record with offset " + entries[2 * next]);
            }
            if (next < entries.length / 2 && entries[2 * next] == offset) {
                if (entries[2 * next + 1] != position) {
                    bad("offset " + offset + " is at byte " + position + ", index says " + entries[2 * next + 1]);
                } else {
                    next++;
                }
            }
        }

        void finish() {
            while (next < entries.length / 2) {
                bad("entry for offset " + entries[2 * next] + " points past the last valid record");
            }
        }

        private void bad(final String message) {
            issues.add(new Problem(file, IndexDescriptor.entryPosition(next), "INDEX", message + " (rebuilt at open)"));
            next++;
        }
    }

    private static SegmentChannel openReadOnly(final Path file) throws IOException {
        return SegmentChannel.open(file, SegmentChannel.READ_ONLY, SegmentChannel.READ_ONLY, ChannelOpener.DEFAULT);
    }

    private static SegmentHeader.Decoded readHeader(final SegmentChannel ch, final long length) throws IOException {
        final ByteBuffer head = ByteBuffer.allocate(SegmentHeaderDescriptor.LENGTH);
        head.limit((int) Math.min(SegmentHeaderDescriptor.LENGTH, length));
        ch.readFully(head, 0);
        return SegmentHeader.decode(head.array(), head.limit());
    }

    private static List<Long> ids(final Path dir) {
        try {
            return SegmentFiles.listIds(dir);
        } catch (final IOException e) {
            return List.of();
        }
    }

    /** {@code path} itself when it holds segments, else its sub-directories that do, by name. */
    private static List<Path> logDirectories(final Path path) {
        if (!Files.isDirectory(path)) {
            throw StorageException.of(StorageErrorCode.INVALID_ARGUMENT, "not a directory: " + path);
        }
        if (!ids(path).isEmpty()) {
            return List.of(path);
        }
        final List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(path, Files::isDirectory)) {
            for (final Path child : children) {
                if (!ids(child).isEmpty()) {
                    dirs.add(child);
                }
            }
        } catch (final IOException e) {
            throw StorageException.io("cannot list log directories", path, e);
        }
        dirs.sort(null);
        return dirs;
    }
}
