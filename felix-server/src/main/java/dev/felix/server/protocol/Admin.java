package dev.felix.server.protocol;

import dev.felix.core.Consistency;
import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.stream.ShardInfo;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.StreamInfo;
import dev.felix.wire.Message;
import dev.felix.wire.StreamDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stream admin requests: {@code stream_create}, {@code stream_describe}, {@code stream_list},
 * {@code stream_delete}. Describe opens the stream's logs (it reports their offsets); list reports offsets
 * only of streams already in use, so listing never opens logs. Each returns its reply as a future (metadata
 * writes complete later); the stream writes replies in request order. Stateless.
 */
final class Admin {
    private static final Logger LOG = LoggerFactory.getLogger(Admin.class);

    private Admin() {
    }

    /** Whether {@code m} is a stream admin request. */
    static boolean handles(Message m) {
        return m instanceof Message.StreamCreate || m instanceof Message.StreamDescribe
                || m instanceof Message.StreamList || m instanceof Message.StreamDelete;
    }

    /** The reply to an admin request from a stream authenticated for {@code tenant}. */
    static CompletableFuture<Message> handle(ServerContext context, String tenant, Message request, int negotiated) {
        Long requestId = requestId(request);
        try {
            if (request instanceof Message.StreamCreate c) {
                StreamName name = Routing.streamName(tenant, c.tenantId(), c.namespace(), c.stream());
                return context.broker.createStreamAsync(name, config(c, context.cluster != null))
                        .thenCompose(stream -> loaded(context, stream))
                        .thenApply(info -> (Message) new Message.StreamInfo(describe(context, info), requestId))
                        .exceptionally(e -> error(context, e, requestId, negotiated));
            }
            if (request instanceof Message.StreamDescribe d) {
                StreamName name = Routing.streamName(tenant, d.tenantId(), d.namespace(), d.stream());
                Stream stream = context.broker.find(name).orElseThrow(
                        () -> new FelixException(ErrorCode.NOT_FOUND, "stream '" + name + "' not found"));
                return loaded(context, stream)
                        .thenApply(info -> (Message) new Message.StreamInfo(describe(context, info), requestId))
                        .exceptionally(e -> error(context, e, requestId, negotiated));
            }
            if (request instanceof Message.StreamDelete d) {
                StreamName name = Routing.streamName(tenant, d.tenantId(), d.namespace(), d.stream());
                return context.broker.deleteStream(name, Boolean.TRUE.equals(d.force()))
                        .thenApply(v -> (Message) new Message.StreamDeleted(name.tenant(), name.namespace(),
                                name.stream(), requestId))
                        .exceptionally(e -> error(context, e, requestId, negotiated));
            }
            Message.StreamList l = (Message.StreamList) request;
            if (!tenant.equals(l.tenantId())) {
                throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch");
            }
            List<StreamDescription> streams = new ArrayList<>();
            for (StreamInfo info : context.broker.list(l.tenantId(), l.namespace())) {
                streams.add(describe(context, info));
            }
            return CompletableFuture.completedFuture(new Message.StreamListResult(streams, requestId));
        } catch (FelixException | IllegalArgumentException e) {
            return CompletableFuture.completedFuture(error(context, e, requestId, negotiated));
        }
    }

    /**
     * The stream's info with every shard loaded (durable shards open their logs). In a cluster only the shards
     * this node leads are loaded; the others are reported with their leader, their offsets left to it.
     */
    private static CompletableFuture<StreamInfo> loaded(ServerContext context, Stream stream) {
        List<CompletableFuture<ShardInfo>> shards = new ArrayList<>();
        for (int i = 0; i < stream.shardCount(); i++) {
            if (context.cluster != null
                    && !(context.broker.router().shard(stream.name(), i) instanceof dev.felix.core.routing.Leadership.Here)) {
                shards.add(CompletableFuture.completedFuture(stream.shard(i).info()));
                continue;
            }
            dev.felix.cluster.replication.Replication replication = context.replication;
            if (replication == null) {
                shards.add(stream.shard(i).load());
                continue;
            }
            // The shard is looked up afresh on every attempt: taking the shard over replaces its runtime
            // (Stream.reopenShard), and the one looked up before is closed for good.
            int index = i;
            java.util.concurrent.atomic.AtomicReference<dev.felix.core.stream.Shard> asked =
                    new java.util.concurrent.atomic.AtomicReference<>();
            shards.add(loadLed(() -> {
                dev.felix.core.stream.Shard now = stream.shard(index);
                asked.set(now);
                return now.load();
            }, () -> {
                dev.felix.core.stream.Shard now = stream.shard(index);
                return now != asked.get() || now.reopening()
                        || now.logRef() != null && replication.takingOver(now.logRef());
            }, () -> stream.shard(index).info(), stream.name() + "/" + i,
                    System.nanoTime() + TAKEOVER_WAIT.toNanos()));
        }
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
                .thenApply(v -> new StreamInfo(stream.name(), stream.config(),
                        shards.stream().map(CompletableFuture::join).toList()));
    }

    /**
     * How long a create or describe waits for a shard this node was just made leader of and is still taking over
     * (for about a second after a placement), so that a stream whose create returned takes publishes at once.
     */
    static final Duration TAKEOVER_WAIT = Duration.ofSeconds(5);
    private static final long TAKEOVER_POLL_MILLIS = 50;

    /**
     * A led shard's info once its log is open. While the load is refused because this node is still taking the
     * shard over ({@code takingOver}: its follower copy is closing, or the shard's runtime was replaced by a fresh
     * one, or that one waits for the old one to close the log), it is asked again every
     * {@link #TAKEOVER_POLL_MILLIS} ms until {@code deadlineNanos}; any other refusal is the reply. A takeover
     * still under way at the deadline is no failure of the request (a create has already been applied; answering
     * it with an error would make a retrying client meet "already exists"): the shard is described unloaded,
     * with its leader and epoch and offsets left unknown, as a shard led elsewhere is, and its first publishes
     * are refused as retryable until the takeover ends.
     */
    static CompletableFuture<ShardInfo> loadLed(Supplier<CompletableFuture<ShardInfo>> load,
            BooleanSupplier takingOver, Supplier<ShardInfo> unloaded, Object label, long deadlineNanos) {
        return loadLed(load, takingOver, unloaded, label, deadlineNanos, false);
    }

    /**
     * {@code askedAgain}: this load follows an unavailable answer given while no takeover was seen. The takeover may
     * have ended between the refusal and the look at it (CI saw a create fail so on a loaded machine), so one such
     * refusal is asked about once more at once; a second in a row is the answer.
     */
    private static CompletableFuture<ShardInfo> loadLed(Supplier<CompletableFuture<ShardInfo>> load,
            BooleanSupplier takingOver, Supplier<ShardInfo> unloaded, Object label, long deadlineNanos,
            boolean askedAgain) {
        return load.get().handle((info, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(info);
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            boolean unavailable = cause instanceof FelixException fe && fe.error().code() == ErrorCode.UNAVAILABLE;
            if (!unavailable) {
                return CompletableFuture.<ShardInfo>failedFuture(cause);
            }
            if (!takingOver.getAsBoolean()) {
                return askedAgain ? CompletableFuture.<ShardInfo>failedFuture(cause)
                        : loadLed(load, takingOver, unloaded, label, deadlineNanos, true);
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                LOG.warn("{}: this node is still taking it over after {} ms; described without its offsets", label,
                        TAKEOVER_WAIT.toMillis());
                return CompletableFuture.completedFuture(unloaded.get());
            }
            // Runnable::run: the delay's own thread asks the shard, whose loop does the work.
            return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(TAKEOVER_POLL_MILLIS,
                    java.util.concurrent.TimeUnit.MILLISECONDS, Runnable::run))
                    .thenCompose(v -> loadLed(load, takingOver, unloaded, label, deadlineNanos, false));
        }).thenCompose(f -> f);
    }

    /** The error reply for a failed request (and its count in the error metric). */
    static Message error(ServerContext context, Throwable e, Long requestId, int negotiated) {
        Throwable cause = e;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        FelixError error = cause instanceof FelixException fe ? fe.error()
                : FelixError.of(cause instanceof IllegalArgumentException ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL,
                        String.valueOf(cause.getMessage()));
        context.metrics.error(error.code());
        return Frames.error(error, requestId, negotiated);
    }

    private static Long requestId(Message m) {
        if (m instanceof Message.StreamCreate c) {
            return c.requestId();
        }
        if (m instanceof Message.StreamDescribe d) {
            return d.requestId();
        }
        if (m instanceof Message.StreamDelete d) {
            return d.requestId();
        }
        return ((Message.StreamList) m).requestId();
    }

    private static StreamConfig config(Message.StreamCreate c, boolean clustered) throws FelixException {
        int shards = c.shards() == null ? 1 : RequestFields.u32("shards", c.shards(), 1, StreamConfig.MAX_SHARDS);
        boolean durable = Boolean.TRUE.equals(c.durable());
        if (!durable && (c.fsync() != null || c.retentionBytes() != null || c.retentionAgeMs() != null)) {
            throw new IllegalArgumentException("fsync and retention apply to durable streams only");
        }
        StreamConfig.Fsync fsync = c.fsync() == null ? StreamConfig.Fsync.PERIODIC : StreamConfig.Fsync.parse(c.fsync());
        // retention_bytes 0 (or absent): no size limit
        long retentionBytes = c.retentionBytes() == null ? 0
                : RequestFields.u64("retention_bytes", c.retentionBytes(), 0, Long.MAX_VALUE);
        Duration age = c.retentionAgeMs() == null ? null
                : Duration.ofMillis(RequestFields.u64("retention_age_ms", c.retentionAgeMs(), 1, Long.MAX_VALUE));
        Consistency consistency = c.consistency() == null ? Consistency.LEADER : Consistency.parse(c.consistency());
        int replicas = c.replicas() == null ? 0 : RequestFields.u32("replicas", c.replicas(), 1, StreamConfig.MAX_REPLICAS);
        if (!clustered && (consistency == Consistency.QUORUM || replicas > 1)) {
            throw new FelixException(ErrorCode.BAD_REQUEST, (consistency == Consistency.QUORUM ? "consistency quorum"
                    : "replicas " + replicas) + " needs a cluster; this broker is a single node (start it with"
                    + " --cluster-bootstrap or --cluster-join to form one)");
        }
        boolean noReplay = Boolean.TRUE.equals(c.noReplay());
        if (durable && noReplay) {
            throw new FelixException(ErrorCode.BAD_REQUEST, "no_replay applies to ephemeral streams only: a durable"
                    + " stream's subscribers can always replay from its log");
        }
        return StreamConfig.builder().shards(shards).durable(durable).fsync(fsync).retentionBytes(retentionBytes)
                .retentionAge(age).consistency(consistency).replicas(replicas).noReplay(noReplay).build();
    }

    static StreamDescription describe(ServerContext context, StreamInfo info) {
        StreamConfig c = info.config();
        List<dev.felix.wire.ShardInfo> shards = new ArrayList<>();
        boolean loaded = true;
        long uid = context.cluster == null ? 0 : uid(context, info.name());
        Integer replicas = context.cluster == null ? null : c.replicas();
        for (ShardInfo s : info.shards()) {
            dev.felix.cluster.ShardPlacement p = context.cluster == null ? null
                    : context.cluster.placement(dev.felix.cluster.ShardKey.stream(uid, s.shard())).orElse(null);
            if (p != null) {
                replicas = p.replicas().size();
                // Offsets are known where the shard is led; elsewhere 0/0 (ask its leader, or felix cluster status).
                boolean here = s.nextOffset() >= 0 && context.cluster.localNodeId().equals(p.leader());
                shards.add(new dev.felix.wire.ShardInfo(s.shard(), here ? s.oldestOffset() : 0, here ? s.nextOffset() : 0,
                        p.leader(), p.epoch(), p.replicas(),
                        p.status() == dev.felix.cluster.ShardStatus.ONLINE ? "online" : p.reason()));
                continue;
            }
            if (s.nextOffset() < 0) {
                loaded = false; // a durable shard whose log is not open: offsets unknown without opening it
                continue;
            }
            shards.add(new dev.felix.wire.ShardInfo(s.shard(), s.oldestOffset(), s.nextOffset()));
        }
        StreamName n = info.name();
        return new StreamDescription(n.tenant(), n.namespace(), n.stream(), c.shards(), c.durable(),
                c.durable() ? c.fsync().wireName() : null,
                c.retentionBytes() > 0 ? c.retentionBytes() : null,
                c.retentionAge() != null ? c.retentionAge().toMillis() : null,
                loaded ? shards : null,
                context.cluster != null ? c.consistency().wireName() : null,
                replicas, c.noReplay() ? Boolean.TRUE : null);
    }

    private static long uid(ServerContext context, StreamName name) {
        try {
            return context.broker.metadata().stream(name).map(r -> r.uid()).orElse(0L);
        } catch (FelixException e) {
            return 0;
        }
    }
}
