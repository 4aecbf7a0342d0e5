package dev.felix.storage;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * <b>Thread-safe; one per node, closed after the logs it serves.</b>
 *
 * <p>What all logs of a node share: a small pool of flush threads (device flushes, background seals,
 * retention), one timer thread (periodic fsync and retention ticks), the clock, the {@link LogMetrics} and
 * per-thread staging buffers. Thousands of logs cost no threads of their own: a log only ever queues one
 * flush task at a time, and every log's timer ticks share the one timer thread.
 *
 * <p><b>Lifecycle:</b> create one per node, open logs with it, close the logs, then {@link #close()} the
 * runtime. Threads start lazily on first use; creating a runtime touches no file. Flush futures completed
 * by the runtime run their dependent actions on a flush thread, so callers should attach heavy work with
 * the {@code *Async} variants of {@link java.util.concurrent.CompletableFuture}.
 *
 * <p><b>Concurrency:</b> thread-safe.
 */
public final class StorageRuntime implements AutoCloseable {
    /**
     * Default flush threads. One log uses at most one at a time (its flushes are serialised by group commit),
     * so this bounds how many logs flush concurrently; device flushes of different files overlap well.
     */
    public static final int DEFAULT_FLUSH_THREADS = 4;
    /** Default prefix of the runtime's thread names. */
    public static final String DEFAULT_THREAD_NAME_PREFIX = "felix-storage";
    /** Largest per-thread direct staging buffer; larger batches are written from a heap buffer in chunks. */
    static final int MAX_STAGING_BYTES = 1024 * 1024;
    /** How long {@link #close()} waits for queued flushes. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final ThreadPoolExecutor flushExecutor;
    private final ScheduledThreadPoolExecutor timer;
    private final Clock clock;
    private final LogMetrics metrics = new LogMetrics();
    private final ChannelOpener opener;
    private final ThreadLocal<ByteBuffer> staging = new ThreadLocal<>();
    private volatile boolean closed;

    private StorageRuntime(final Builder b) {
        this.clock = b.clock;
        this.opener = b.opener;
        this.flushExecutor = new ThreadPoolExecutor(b.flushThreads, b.flushThreads, 30, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), daemonThreads(b.threadNamePrefix + "-flush-"));
        this.flushExecutor.allowCoreThreadTimeOut(true);
        this.timer = new ScheduledThreadPoolExecutor(1, daemonThreads(b.threadNamePrefix + "-timer-"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.timer.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    /** A runtime with defaults: {@value #DEFAULT_FLUSH_THREADS} flush threads, the system UTC clock. */
    public static StorageRuntime create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The counters every log of this runtime records into. */
    public LogMetrics metrics() {
        return metrics;
    }

    /** The clock used for segment creation times and retention age. */
    public Clock clock() {
        return clock;
    }

    /** Current time from {@link #clock()} in microseconds since the epoch. */
    public long nowMicros() {
        final Instant now = clock.instant();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000);
    }

    /** Stops the threads. Logs still open afterwards fail their flushes with {@link StorageErrorCode#CLOSED}. */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        flushExecutor.shutdown();
        try {
            if (!flushExecutor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                flushExecutor.shutdownNow();
            }
        } catch (final InterruptedException e) {
            flushExecutor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    boolean isClosed() {
        return closed;
    }

    ChannelOpener opener() {
        return opener;
    }

    /** Runs {@code task} on a flush thread. */
    void execute(final Runnable task) {
        try {
            flushExecutor.execute(task);
        } catch (final RejectedExecutionException e) {
            throw StorageException.of(StorageErrorCode.CLOSED, "storage runtime is closed", e);
        }
    }

    /** Runs {@code task} every {@code interval} on the timer thread (first run after one interval). */
    ScheduledFuture<?> scheduleWithFixedDelay(final Runnable task, final Duration interval) {
        final long nanos = interval.toNanos();
        try {
            return timer.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
        } catch (final RejectedExecutionException e) {
            throw StorageException.of(StorageErrorCode.CLOSED, "storage runtime is closed", e);
        }
    }

    /** Timer tasks currently scheduled (for tests: proves which logs have timers). */
    int scheduledTaskCount() {
        return timer.getQueue().size();
    }

    /**
     * This thread's direct staging buffer with at least {@code bytes} capacity, cleared, or null when
     * {@code bytes} exceeds {@link #MAX_STAGING_BYTES}. Encoding into a direct buffer spares the JDK's copy
     * into its own temporary direct buffer on write; capping the size keeps per-thread direct memory bounded.
     */
    ByteBuffer staging(final int bytes) {
        if (bytes > MAX_STAGING_BYTES) {
            return null;
        }
        ByteBuffer buf = staging.get();
        if (buf == null || buf.capacity() < bytes) {
            buf = ByteBuffer.allocateDirect(Math.min(MAX_STAGING_BYTES, Math.max(4096, Integer.highestOneBit(bytes - 1) << 1)));
            staging.set(buf);
        }
        buf.clear();
        return buf;
    }

    private static ThreadFactory daemonThreads(final String prefix) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Builds a {@link StorageRuntime}. Not thread-safe. */
    public static final class Builder {
        private int flushThreads = DEFAULT_FLUSH_THREADS;
        private Clock clock = Clock.systemUTC();
        private String threadNamePrefix = DEFAULT_THREAD_NAME_PREFIX;
        private ChannelOpener opener = ChannelOpener.DEFAULT;

        private Builder() {
        }

        /** Threads performing device flushes, background seals and retention for all logs, 1..256; default 4. */
        public Builder flushThreads(final int threads) {
            if (threads <= 0 || threads > 256) {
                throw StorageException.invalidConfig("flushThreads", threads, "must be in 1..256");
            }
            this.flushThreads = threads;
            return this;
        }

        /** Time source for segment creation times and retention age (inject a fixed clock in tests); default UTC. */
        public Builder clock(final Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Prefix of thread names (default {@code felix-storage}). */
        public Builder threadNamePrefix(final String prefix) {
            if (prefix == null || prefix.isBlank()) {
                throw StorageException.invalidConfig("threadNamePrefix", prefix, "must not be blank");
            }
            this.threadNamePrefix = prefix;
            return this;
        }

        /** Test hook: how files are opened (fault injection). */
        Builder channelOpener(final ChannelOpener opener) {
            this.opener = Objects.requireNonNull(opener, "opener");
            return this;
        }

        public StorageRuntime build() {
            return new StorageRuntime(this);
        }
    }
}
