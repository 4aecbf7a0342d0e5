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
     * Checks every segment header and record checksum, offset continuity within and across segments, that
     * index entries point at the records they name, the epoch history ({@link EpochHistoryDescriptor}) and the
     * writer history ({@link WriterHistoryDescriptor}: two writers at once, a log changed between writers).
     * Lists each problem with file and byte position, and for damaged records what open and reads do about
     * them; continues past damage at the next record that verifies and continues the offsets.
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
            verifyEpochHistory(dir, problems);
            verifyWriterHistory(dir, problems);
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
            RecordScanner sc = new RecordScanner(ch, SegmentHeaderDescriptor.LENGTH, length, base,
                TOOL_MAX_PAYLOAD, RecordScanner.SCAN_WINDOW_BYTES);
            long next = base;
            long checkedTo = length;
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
                final long at = sc.position();
                final long expectedHere = sc.expectedOffset();
                // Where do valid records (continuing the offsets) start again? That decides what open and reads do.
                final RecordResync.Found after = SegmentDamage.next(ch, at, expectedHere, kind, sc.faultClaimedLength(),
                    length, -1, TOOL_MAX_PAYLOAD);
                final String note;
                if (after == null) {
                    note = newest ? " (torn tail of the newest segment: no valid record follows; open cuts it)"
                        : " (no valid record follows in this sealed segment: offsets from " + expectedHere
                        + " up to the next segment's base cannot be served; reads of them return Corrupted)";
                } else if (newest) {
                    note = " (offsets " + expectedHere + ".." + (after.offset() - 1) + " damaged; a valid record follows "
                        + "at byte " + after.position() + ", so open refuses this log)";
                } else {
                    note = after.offset() == expectedHere ? " (no offset lost; records continue at byte " + after.position() + ")"
                        : " (offsets " + expectedHere + ".." + (after.offset() - 1) + " cannot be served; reads of them "
                        + "return Corrupted and continue at offset " + after.offset() + ")";
                }
                problems.add(new Problem(file, at, kind.name(), sc.faultDetail() + note));
                if (after == null) {
                    intact = false;
                    checkedTo = at;
                    break;
                }
                sc = new RecordScanner(ch, after.position(), length, after.offset(), TOOL_MAX_PAYLOAD,
                    RecordScanner.SCAN_WINDOW_BYTES);
                next = after.offset();
            }
            totals[1] += checkedTo;
            index.finish();
            return intact ? next : -1;
        } catch (final IOException e) {
            problems.add(new Problem(file, 0, "IO_ERROR", e.toString()));
            return -1;
        }
    }

    /** Epoch history: every entry's CRC and ordering (a torn last entry is reported; open cuts it). */
    private static void verifyEpochHistory(final Path dir, final List<Problem> problems) {
        final Path file = dir.resolve(EpochHistoryDescriptor.FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return;
        }
        try {
            final byte[] bytes = Files.readAllBytes(file);
            final EpochHistory.Parsed parsed = EpochHistory.parse(file, bytes);
            if (parsed.validLength() < bytes.length) {
                problems.add(new Problem(file, parsed.validLength(), CorruptionKind.TRUNCATED.name(), "torn last epoch "
                    + "history entry (" + (bytes.length - parsed.validLength()) + " bytes): open cuts it"));
            }
        } catch (final StorageException e) {
            problems.add(new Problem(file, e.position().orElse(0), e.corruption().map(Enum::name).orElse("CORRUPTION"),
                e.getMessage()));
        } catch (final IOException e) {
            problems.add(new Problem(file, 0, "IO_ERROR", e.toString()));
        }
    }

    /**
     * Writer history: two writer sessions that overlapped (one wrote an entry after a later session started),
     * sessions fenced by another writer, and sessions that started at another offset than the previous one
     * closed cleanly at (the log changed between them).
     */
    private static void verifyWriterHistory(final Path dir, final List<Problem> problems) {
        final Path file = dir.resolve(WriterHistoryDescriptor.FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return;
        }
        final WriterHistory.Decoded d;
        try {
            d = WriterHistory.decode(Files.readAllBytes(file));
        } catch (final IOException e) {
            problems.add(new Problem(file, 0, "IO_ERROR", e.toString()));
            return;
        }
        for (int i = 0; i < d.problems().size(); i++) {
            problems.add(new Problem(file, d.problemPositions().get(i), "WRITER_HISTORY", d.problems().get(i)));
        }
        final java.util.Map<Long, WriterHistory.Entry> starts = new java.util.HashMap<>();
        final java.util.Map<Long, WriterHistory.Entry> supersededBy = new java.util.HashMap<>();
        final java.util.Set<Long> open = new java.util.LinkedHashSet<>();
        WriterHistory.Entry newest = null;
        Long cleanEnd = null;
        for (final WriterHistory.Entry e : d.entries()) {
            switch (e.kind()) {
                case WriterHistoryDescriptor.START:
                    for (final long s : open) {
                        supersededBy.putIfAbsent(s, e);
                    }
                    open.clear();
                    if (cleanEnd != null && e.offset() != cleanEnd) {
                        problems.add(new Problem(file, e.position(), "LOG_CHANGED_BETWEEN_WRITERS", "session "
                            + sessionName(e) + " began writing at offset " + e.offset() + " but the previous session "
                            + sessionName(newest) + " closed cleanly at offset " + cleanEnd + ": the log was changed "
                            + "outside a writer session (another writer, or files copied or edited)"));
                    }
                    cleanEnd = null;
                    starts.put(e.session(), e);
                    open.add(e.session());
                    newest = e;
                    break;
                case WriterHistoryDescriptor.END:
                case WriterHistoryDescriptor.FENCED:
                    final WriterHistory.Entry later = supersededBy.get(e.session());
                    final WriterHistory.Entry own = starts.get(e.session());
                    if (later != null) {
                        problems.add(new Problem(file, e.position(), "CONCURRENT_WRITERS", "two writers worked on this "
                            + "log at the same time: session " + sessionName(own == null ? e : own) + ", which began "
                            + "writing at offset " + (own == null ? "?" : Long.toString(own.offset())) + ", wrote "
                            + e.kindName() + " at offset " + e.offset() + " after session " + sessionName(later)
                            + " began writing at offset " + later.offset() + "; records from offset "
                            + Math.min(own == null ? later.offset() : own.offset(), later.offset())
                            + " on may have been overwritten by the other writer"));
                    } else if (e.kind() == WriterHistoryDescriptor.FENCED) {
                        problems.add(new Problem(file, e.position(), "CONCURRENT_WRITERS", "session " + sessionName(e)
                            + " stopped at offset " + e.offset() + " because another writer replaced or removed this "
                            + "log's writer history"));
                    }
                    open.remove(e.session());
                    cleanEnd = e.kind() == WriterHistoryDescriptor.END && newest != null
                        && newest.session() == e.session() && later == null ? Long.valueOf(e.offset()) : null;
                    break;
                default:
                    problems.add(new Problem(file, e.position(), "WRITER_HISTORY", "unknown entry kind " + e.kind()));
            }
        }
    }

    private static String sessionName(final WriterHistory.Entry e) {
        return e == null ? "?" : Long.toHexString(e.session()) + " (pid " + e.pid() + ")";
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
                if (!LogDirectories.isDeleted(child) && !ids(child).isEmpty()) {
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
