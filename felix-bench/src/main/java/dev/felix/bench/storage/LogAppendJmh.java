package dev.felix.bench.storage;

import dev.felix.storage.FsyncPolicy;
import dev.felix.storage.LogConfig;
import dev.felix.storage.SegmentedLog;
import dev.felix.storage.StorageRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH micro-benchmark of {@link SegmentedLog#append}: encode + checksum + one positioned write per batch,
 * without waiting for durability ({@code none} / {@code periodic}). One log per trial in a temp directory.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LogAppendJmh {
    @Param({"none", "periodic"})
    public String policy;

    @Param({"1", "16"})
    public int batch;

    @Param({"128"})
    public int recordSize;

    private Path dir;
    private StorageRuntime runtime;
    private SegmentedLog log;
    private java.util.List<byte[]> payloads;

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("felix-jmh-log-");
        runtime = StorageRuntime.create();
        final FsyncPolicy p = policy.equals("none") ? FsyncPolicy.none() : FsyncPolicy.periodic();
        log = SegmentedLog.open(dir, LogConfig.builder().fsyncPolicy(p).build(), runtime);
        payloads = new java.util.ArrayList<>();
        for (int i = 0; i < batch; i++) {
            payloads.add(new byte[recordSize]);
        }
    }

    @Benchmark
    public long append() {
        return log.append(payloads, System.nanoTime() / 1000).lastOffset();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        log.close();
        runtime.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (final Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
