package dev.felix.server.metrics;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreMetrics;
import dev.felix.core.ErrorCode;
import dev.felix.transport.StreamWrites;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The broker's Prometheus metrics. Counters live in plain {@link LongAdder}s (core and server) and are
 * read by Micrometer only when {@code /metrics} is scraped, so the data path never touches Micrometer.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: counters are bumped from any thread (event loops, shard writers,
 * storage flush threads) and read by the admin HTTP thread on a scrape. Touches no {@code ByteBuf}s.
 *
 * <p>Names are listed in {@code docs/operations.md}.
 */
public final class BrokerMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    /** Connections accepted. */
    public final LongAdder connectionsOpened = new LongAdder();
    /** Connections closed. */
    public final LongAdder connectionsClosed = new LongAdder();
    /** Events written to subscriber streams. */
    public final LongAdder deliveredEvents = new LongAdder();
    /** Gap notices written to subscriber streams. */
    public final LongAdder deliveredGaps = new LongAdder();
    /** Publish requests acknowledged successfully. */
    public final LongAdder publishOk = new LongAdder();
    /** Publish requests refused or failed. */
    public final LongAdder publishFailed = new LongAdder();
    /** Publish frames received in a binary layout ({@code 0x0001}, {@code 0x0009}, {@code 0x0029}). */
    public final LongAdder publishFramesBinary = new LongAdder();
    /** Publish frames received as JSON ({@code publish}, {@code publish_batch}). */
    public final LongAdder publishFramesJson = new LongAdder();
    /** Subscriptions opened. */
    public final LongAdder subscriptionsOpened = new LongAdder();
    /** Events dropped at broker ingress (unacknowledged publishes under {@code ingress_policy: drop_new}). */
    public final LongAdder ingressDroppedEvents = new LongAdder();
    /**
     * Payload bytes held now in pooled buffers (binary publishes, kept until the ring evicts them and every writer is
     * done with them; {@code pooled_payloads}).
     */
    public final LongAdder pooledPayloadBytes = new LongAdder();
    /** Payload bytes the shards' rings copied out of payload blocks into arrays to let the blocks go. */
    public final LongAdder payloadSettledBytes = new LongAdder();
    /** Times the broker asked the shards to do so ({@code PayloadPressure}). */
    public final LongAdder payloadSettles = new LongAdder();
    /** Times broker ingress paused a publishing stream because its shard's writer queue was full. */
    public final LongAdder ingressPaused = new LongAdder();
    /** Errors the QUIC codec reported on a connection that stayed open (see {@code ConnectionHandler}). */
    public final LongAdder connectionErrors = new LongAdder();
    /** Binary watch-change frames ({@code 0x0026}) written to watch streams. */
    public final LongAdder watchChangesWrittenBinary = new LongAdder();
    /** JSON {@code watch_change} frames written to watch streams. */
    public final LongAdder watchChangesWrittenJson = new LongAdder();
    /** Binary watch-change frames encoded (once per change and event loop, shared by the watches it reaches). */
    public final LongAdder watchChangeEncodingsBinary = new LongAdder();
    /** JSON {@code watch_change} frames encoded (once per change and event loop, shared by the watches it reaches). */
    public final LongAdder watchChangeEncodingsJson = new LongAdder();
    /** {@code watch_snapshot} chunks written to watch streams. */
    public final LongAdder watchSnapshotChunksWritten = new LongAdder();
    /** {@code watch_snapshot} chunks encoded (once per chunk of a snapshot, shared by the watches that start at it). */
    public final LongAdder watchSnapshotEncodings = new LongAdder();
    /** Times a watch stream stopped writing at its per-turn budget and let the event loop run other work. */
    /** Watch drains that waited for {@code watch_linger_us} so that quick changes leave together. */
    public final LongAdder watchLingers = new LongAdder();
    public final LongAdder watchDrainYields = new LongAdder();
    /**
     * Watch frames the broker wrote between a reply on a client stream (a publish acknowledgement, a cache
     * reply) becoming ready and being written: how far replies queue behind watch delivery.
     */
    public final DistributionSummary replyWaitWatchFrames;
    /** Every watch frame written so far: changes in either encoding and snapshot chunks. */
    public long watchFramesWritten() {
        return watchChangesWrittenBinary.sum() + watchChangesWrittenJson.sum() + watchSnapshotChunksWritten.sum();
    }

    /** Connection and client-opened stream closes, by who closed and why. */
    public final Closes closes = new Closes();
    /** Multiplexed event frames written (one per batch per session, whatever the number of its subscriptions). */
    public final LongAdder muxFrames = new LongAdder();

    private final Map<ErrorCode, LongAdder> errors = new EnumMap<>(ErrorCode.class);
    /**
     * Suppliers bound after construction. Micrometer holds a function counter's object weakly, and a supplier
     * made for it (a lambda, a method reference) has no other holder: collected, its counter would stop counting.
     */
    private final List<Object> bound = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * From a publish reaching the broker (its frame decoded) to its acknowledgement being queued for the
     * client: the shard writer, and for durable streams the log append and, under {@code on_commit}, the
     * fsync. Recorded by the stream's event loop; one of the two meters the data path touches.
     */
    public final io.micrometer.core.instrument.Timer publishAckLatency;
    /**
     * From a shard accepting a batch to its write on one subscriber's stream (per subscriber); batches
     * replayed from a log are not counted. Recorded by the subscriber stream's event loop.
     */
    public final io.micrometer.core.instrument.Timer fanoutDelay;

    public BrokerMetrics(CoreMetrics core, dev.felix.storage.LogMetrics storage, LongSupplier activeSubscriptions,
            LongSupplier subscriberQueueEvents, LongSupplier writerQueueEvents, LongSupplier openConnections) {
        this(newRegistry(), core, storage, activeSubscriptions, subscriberQueueEvents, writerQueueEvents, openConnections);
    }

    /** A fresh Prometheus registry (a cluster member creates it early, so its Raft meters join it). */
    public static PrometheusMeterRegistry newRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /** With meters in {@code registry}, which may already hold others (the Raft meters of a cluster member). */
    public BrokerMetrics(PrometheusMeterRegistry registry, CoreMetrics core, dev.felix.storage.LogMetrics storage,
            LongSupplier activeSubscriptions, LongSupplier subscriberQueueEvents, LongSupplier writerQueueEvents,
            LongSupplier openConnections) {
        this.registry = registry;
        if (storage != null) {
            // One meter per storage counter, read from the runtime's snapshot at scrape time. Durations
            // are kept in nanoseconds there and shown in seconds here, as Prometheus expects.
            java.util.Set<String> names = storage.snapshot().keySet();
            for (String name : names) {
                String meter = name.replace('_', '.');
                if (name.endsWith("_duration_nanos_total")) {
                    String base = name.substring(0, name.length() - "_duration_nanos_total".length());
                    String count = base + "_total";
                    io.micrometer.core.instrument.FunctionTimer.builder(base.replace('_', '.') + ".duration", storage,
                            m -> m.snapshot().getOrDefault(names.contains(count) ? count : name, 0L),
                            m -> m.snapshot().getOrDefault(name, 0L), java.util.concurrent.TimeUnit.NANOSECONDS)
                            .description("storage: time spent, " + base.replace('_', ' ')).register(registry);
                } else if (name.contains("_nanos")) {
                    String seconds = name.replace("_nanos", "_seconds");
                    Gauge.builder(seconds.replace('_', '.'), storage, m -> m.snapshot().getOrDefault(name, 0L) / 1e9)
                            .description("storage: " + seconds).strongReference(true).register(registry);
                } else if (name.endsWith("_total")) {
                    FunctionCounter.builder(meter.substring(0, meter.length() - ".total".length()), storage,
                            m -> m.snapshot().getOrDefault(name, 0L)).description("storage: " + name)
                            .register(registry);
                } else {
                    Gauge.builder(meter, storage, m -> m.snapshot().getOrDefault(name, 0L))
                            .description("storage: " + name).strongReference(true).register(registry);
                }
            }
        }
        counter("felix.published.events", "events accepted into shards", core.publishedEvents);
        counter("felix.published.bytes", "payload bytes accepted into shards", core.publishedBytes);
        counter("felix.batches", "batches formed by shard writers (one fanout each)", core.batches);
        counter("felix.fanout.events", "events placed on subscriber queues", core.fannedOutEvents);
        counter("felix.gap.notices", "gap notices queued for subscribers", core.gapNotices);
        counter("felix.retention.missed.events", "events subscribers missed to retention", core.retentionMissedEvents);
        counter("felix.corruption.missed.events", "events subscribers missed because they are damaged on disk",
                core.corruptMissedEvents);
        counter("felix.writer.blocked", "times a block subscriber stopped its shard writer", core.writerBlocked);
        counter("felix.catchup.detached", "times a catch_up subscriber left live delivery", core.catchUpDetached);
        counter("felix.replayed.events", "events delivered from history", core.replayedEvents);
        for (Checkpoint c : Checkpoint.values()) {
            if (c == Checkpoint.CLIENT_PUBLISH_QUEUE || c == Checkpoint.CLIENT_RECEIVE_QUEUE) {
                continue; // counted by the client SDK
            }
            LongAdder dropped = c == Checkpoint.BROKER_INGRESS ? ingressDroppedEvents : core.dropped(c);
            LongAdder blocked = c == Checkpoint.BROKER_INGRESS ? ingressPaused : core.blocked(c);
            FunctionCounter.builder("felix.dropped.events", dropped, LongAdder::sum)
                    .description("events dropped at a checkpoint (each reported to its subscriber as a gap)")
                    .tag("checkpoint", c.wireName()).register(registry);
            FunctionCounter.builder("felix.blocked", blocked, LongAdder::sum)
                    .description("times a full checkpoint made its producer wait")
                    .tag("checkpoint", c.wireName()).register(registry);
        }
        counter("felix.connections.opened", "QUIC connections accepted", connectionsOpened);
        counter("felix.connections.closed", "QUIC connections closed", connectionsClosed);
        for (String encoding : new String[] {"binary", "json"}) {
            boolean binary = encoding.equals("binary");
            FunctionCounter.builder("felix.watch.changes.written", binary ? watchChangesWrittenBinary
                    : watchChangesWrittenJson, LongAdder::sum)
                    .description("watch change frames written to watch streams, by encoding")
                    .tag("encoding", encoding).register(registry);
            FunctionCounter.builder("felix.watch.change.encodings", binary ? watchChangeEncodingsBinary
                    : watchChangeEncodingsJson, LongAdder::sum)
                    .description("watch change frames encoded (each shared by the watches it reaches), by encoding")
                    .tag("encoding", encoding).register(registry);
        }
        counter("felix.watch.snapshot.chunks.written", "watch_snapshot chunks written to watch streams",
                watchSnapshotChunksWritten);
        counter("felix.watch.snapshot.encodings", "watch_snapshot chunks encoded (each shared by the watches that"
                + " start at its snapshot)", watchSnapshotEncodings);
        counter("felix.watch.drain.yields", "times a watch stream stopped at its per-turn budget to let the event"
                + " loop run other work", watchDrainYields);
        counter("felix.watch.lingers", "times a watch stream of a cache with many watches waited watch_linger_us so"
                + " that quick changes leave together", watchLingers);
        counter("felix.connection.errors", "transport errors reported on connections that stayed open",
                connectionErrors);
        for (Closes.By by : Closes.By.values()) {
            for (Closes.Reason reason : Closes.Reason.values()) {
                FunctionCounter.builder("felix.connection.closes", closes.connections(by, reason), LongAdder::sum)
                        .description("QUIC connections closed, by who closed them and why")
                        .tag("by", by.label()).tag("reason", reason.label()).register(registry);
                FunctionCounter.builder("felix.stream.closes", closes.streams(by, reason), LongAdder::sum)
                        .description("client-opened streams ended, by who ended them and why")
                        .tag("by", by.label()).tag("reason", reason.label()).register(registry);
            }
        }
        counter("felix.delivered.events", "events written to subscriber streams", deliveredEvents);
        counter("felix.delivered.gaps", "gap notices written to subscriber streams", deliveredGaps);
        FunctionCounter.builder("felix.publish.requests", publishOk, LongAdder::sum)
                .description("publish requests by outcome").tag("result", "ok").register(registry);
        FunctionCounter.builder("felix.publish.requests", publishFailed, LongAdder::sum)
                .description("publish requests by outcome").tag("result", "error").register(registry);
        FunctionCounter.builder("felix.publish.frames", publishFramesBinary, LongAdder::sum)
                .description("publish frames received, by encoding").tag("encoding", "binary").register(registry);
        FunctionCounter.builder("felix.publish.frames", publishFramesJson, LongAdder::sum)
                .description("publish frames received, by encoding").tag("encoding", "json").register(registry);
        counter("felix.subscriptions.opened", "subscriptions opened", subscriptionsOpened);
        counter("felix.mux.frames", "multiplexed event frames written (one per batch per session)", muxFrames);
        for (ErrorCode code : ErrorCode.values()) {
            LongAdder a = new LongAdder();
            errors.put(code, a);
            FunctionCounter.builder("felix.errors", a, LongAdder::sum)
                    .description("errors sent to clients, by code").tag("code", code.code()).register(registry);
        }
        gauge("felix.connections", "open QUIC connections", openConnections);
        gauge("felix.subscriptions", "active subscriptions", activeSubscriptions);
        gauge("felix.pooled.payload.bytes", "payload bytes held now in pooled buffers", pooledPayloadBytes::sum);
        Gauge.builder("felix.queue.depth.events", subscriberQueueEvents, asDouble())
                .description("events waiting at a checkpoint").tag("checkpoint", Checkpoint.SUBSCRIBER_QUEUE.wireName())
                .strongReference(true).register(registry);
        Gauge.builder("felix.queue.depth.events", writerQueueEvents, asDouble())
                .description("events waiting at a checkpoint").tag("checkpoint", Checkpoint.WRITER_QUEUE.wireName())
                .strongReference(true).register(registry);
        publishAckLatency = latency("felix.publish.ack.latency",
                "publish to acknowledgement at the broker (shard writer, log append, fsync under on_commit)");
        fanoutDelay = latency("felix.fanout.delay", "shard accepting a batch to its write on a subscriber stream");
        replyWaitWatchFrames = DistributionSummary.builder("felix.reply.wait.watch.frames")
                .description("watch frames written between a reply on a client stream becoming ready and its write")
                .register(registry);
        dev.felix.server.BuildInfo build = dev.felix.server.BuildInfo.current();
        Gauge.builder("felix.build.info", () -> 1).description("the version and git commit of this build (value 1)")
                .tag("version", build.version()).tag("commit", build.commit()).strongReference(true).register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /**
     * Registers the node's cache counters, summed over every cache in memory (read at scrape time).
     */
    public void bindCaches(dev.felix.core.cache.Caches caches) {
        record Counter(String name, String description,
                java.util.function.Function<dev.felix.core.cache.CacheMetrics, LongAdder> field) {
        }
        List<Counter> counters = List.of(
                new Counter("felix.cache.puts", "cache puts applied", m -> m.puts),
                new Counter("felix.cache.deletes", "cache deletes applied", m -> m.deletes),
                new Counter("felix.cache.expirations", "cache entries expired (TTL)", m -> m.expirations),
                new Counter("felix.cache.evictions", "cache entries evicted (capacity, LRU)", m -> m.evictions),
                new Counter("felix.cache.hits", "cache reads that found a value", m -> m.hits),
                new Counter("felix.cache.misses", "cache reads that found nothing", m -> m.misses),
                new Counter("felix.cache.rejected", "cache writes refused (writer queue full)", m -> m.rejected),
                new Counter("felix.cache.watch.delivered", "watch items delivered", m -> m.watchDelivered),
                new Counter("felix.cache.watch.overflows", "watches ended because the watcher fell behind",
                        m -> m.watchOverflows),
                new Counter("felix.cache.snapshots", "cache snapshots written", m -> m.snapshots));
        for (Counter c : counters) {
            FunctionCounter.builder(c.name(), caches, cs -> {
                long sum = 0;
                for (dev.felix.core.cache.Cache cache : cs.caches()) {
                    sum += c.field().apply(cache.metrics()).sum();
                }
                return sum;
            }).description(c.description()).register(registry);
        }
    }

    /**
     * Registers the idle-memory trim counter, the allocator's direct memory gauge, the gauge of large buffers' memory
     * kept for reuse, and the counter of stranded writes released ({@code StreamWrites}).
     */
    public void bindIdleMemory(LongSupplier trims, LongSupplier nettyDirectBytes, LongSupplier largeBufferCacheBytes) {
        bound.add(trims);
        FunctionCounter.builder("felix.idle.trims", trims, LongSupplier::getAsLong)
                .description("times the broker gave memory back after having no client for a while").register(registry);
        gauge("felix.netty.direct.memory.bytes", "direct memory held by Netty's buffer allocator (pooled chunks)",
                nettyDirectBytes);
        LongSupplier stranded = StreamWrites::stranded;
        bound.add(stranded);
        FunctionCounter.builder("felix.stream.writes.stranded", stranded, LongSupplier::getAsLong)
                .description("writes whose own send closed their QUIC stream (a connection past its timeout), whose"
                        + " buffer Netty would have kept forever: released and failed instead").register(registry);
        gauge("felix.large.buffer.cache.bytes", "memory of released buffers over 128 KiB kept for reuse (at most"
                + " -Dfelix.large_buffer_cache_bytes, default 16 MiB; freed when the broker is idle)",
                largeBufferCacheBytes);
    }

    /** Registers the memory of the blocks pooled payloads are copied into ({@code PayloadBlocks}). */
    public void bindPayloadBlocks(LongSupplier blockBytes, LongSupplier inUseBytes) {
        gauge("felix.payload.block.bytes", "memory of the blocks pooled payloads are copied into: this broker's in use,"
                + " and the process's kept for reuse (freed after 30 s unused, or when the broker is idle)", blockBytes);
        gauge("felix.payload.block.in.use.bytes", "memory of the payload blocks in use: each holds a region still in"
                + " use, or is an event loop's current block", inUseBytes);
        counter("felix.payload.settled.bytes", "payload bytes the rings copied out of payload blocks into arrays, so"
                + " blocks tied up by a few events kept long could be reused", payloadSettledBytes);
        counter("felix.payload.settles", "times the broker asked its shards to copy the payloads their rings kept over"
                + " a second out of payload blocks (blocks in use beyond twice the bytes held plus"
                + " pooled_payloads_slack_bytes)", payloadSettles);
    }

    /**
     * Registers what the kernel counts for a listener's UDP sockets ({@code listener}: {@code clients}; on a cluster
     * member also {@code peers}, and {@code peers-outgoing} for the sockets of its own connections to other nodes):
     * datagrams dropped because a socket's receive buffer was full, and bytes queued now. Each scrape reads them from
     * {@code /proc}; call it only where they can be read.
     */
    public void bindUdpCounters(String listener, LongSupplier drops, LongSupplier queuedBytes) {
        bound.add(drops);
        FunctionCounter.builder("felix.udp.receive.drops", drops, LongSupplier::getAsLong).tag("listener", listener)
                .description("datagrams the kernel dropped because a listener socket's receive buffer was full (QUIC"
                        + " resends them, late: the event loop fell behind, or net.core.rmem_max is small)")
                .register(registry);
        Gauge.builder("felix.udp.receive.queue.bytes", queuedBytes, asDouble()).tag("listener", listener)
                .description("bytes waiting in the listener sockets' receive buffers now").strongReference(true)
                .register(registry);
    }

    /** The heap soft maximum the process keeps ZGC under ({@code HeapSoftMax}; -1 when it does not act). */
    public void bindHeapSoftMax(LongSupplier bytes) {
        gauge("felix.heap.soft.max.bytes", "the heap size ZGC is asked to stay under (-1: not set by Felix)", bytes);
    }

    /** 1 when the Java heap is on transparent huge pages ({@code HeapPages}), else 0. */
    public void bindHeapHugePages(boolean huge) {
        gauge("felix.heap.huge.pages", "1 when the Java heap is on 2 MiB transparent huge pages, 0 on 4 KiB pages",
                () -> huge ? 1 : 0);
    }

    /**
     * 1 when Netty reaches direct memory through {@code sun.misc.Unsafe}, and 1 when it allocates direct memory itself
     * ({@code NettyMemoryAccess}), else 0.
     */
    public void bindNettyMemory(boolean unsafe, boolean ownAllocation) {
        gauge("felix.netty.unsafe", "1 when Netty copies to and from direct buffers through sun.misc.Unsafe, 0 through"
                + " ByteBuffer views", () -> unsafe ? 1 : 0);
        gauge("felix.netty.direct.no.cleaner", "1 when Netty allocates direct memory itself (malloc, not zero-filled,"
                + " freed on release), 0 through ByteBuffer.allocateDirect (zero-filled, freed by a Cleaner)",
                () -> ownAllocation ? 1 : 0);
    }

    /** Counts an error sent to a client. */
    public void error(ErrorCode code) {
        errors.get(code).increment();
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
    }

    /** A latency timer exported as a Prometheus histogram (buckets from 10 µs to 10 s) with its max. */
    private io.micrometer.core.instrument.Timer latency(String name, String description) {
        return io.micrometer.core.instrument.Timer.builder(name).description(description)
                .publishPercentileHistogram()
                .minimumExpectedValue(java.time.Duration.ofNanos(10_000))
                .maximumExpectedValue(java.time.Duration.ofSeconds(10))
                .register(registry);
    }

    private void counter(String name, String description, LongAdder adder) {
        FunctionCounter.builder(name, adder, LongAdder::sum).description(description).register(registry);
    }

    private void gauge(String name, String description, LongSupplier supplier) {
        Gauge.builder(name, supplier, asDouble()).description(description).strongReference(true).register(registry);
    }

    private static ToDoubleFunction<LongSupplier> asDouble() {
        return s -> (double) s.getAsLong();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
