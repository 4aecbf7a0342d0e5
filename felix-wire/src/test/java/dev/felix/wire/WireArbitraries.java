package dev.felix.wire;

import dev.felix.wire.Message.Auth;
import dev.felix.wire.Message.AuthOk;
import dev.felix.wire.Message.CacheCreate;
import dev.felix.wire.Message.CacheDelete;
import dev.felix.wire.Message.CacheDescribe;
import dev.felix.wire.Message.CacheGet;
import dev.felix.wire.Message.CacheInfo;
import dev.felix.wire.Message.CacheOk;
import dev.felix.wire.Message.CachePut;
import dev.felix.wire.Message.CacheValue;
import dev.felix.wire.Message.CacheWatch;
import dev.felix.wire.Message.ErrorMessage;
import dev.felix.wire.Message.Event;
import dev.felix.wire.Message.EventBatch;
import dev.felix.wire.Message.EventStreamHello;
import dev.felix.wire.Message.Gap;
import dev.felix.wire.Message.Ok;
import dev.felix.wire.Message.Publish;
import dev.felix.wire.Message.PublishBatch;
import dev.felix.wire.Message.PublishError;
import dev.felix.wire.Message.PublishOk;
import dev.felix.wire.Message.StreamCreate;
import dev.felix.wire.Message.StreamDescribe;
import dev.felix.wire.Message.StreamInfo;
import dev.felix.wire.Message.StreamList;
import dev.felix.wire.Message.StreamListResult;
import dev.felix.wire.Message.Subscribe;
import dev.felix.wire.Message.SubscribeCursorError;
import dev.felix.wire.Message.Subscribed;
import dev.felix.wire.Message.WatchChange;
import dev.felix.wire.Message.WatchEnded;
import dev.felix.wire.Message.WatchSnapshot;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** jqwik generators for every message type and every binary layout. */
final class WireArbitraries {
    private WireArbitraries() {
    }

    /** Unicode text: mostly ASCII, with control characters, BMP, and supplementary code points; no lone surrogates. */
    static Arbitrary<String> text() {
        Arbitrary<Integer> cp = Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.integers().between(0x20, 0x7E)),
            Tuple.of(1, Arbitraries.integers().between(0x00, 0x1F)),
            Tuple.of(2, Arbitraries.integers().between(0x80, 0xD7FF)),
            Tuple.of(1, Arbitraries.integers().between(0xE000, 0xFFFF)),
            Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF)));
        return cp.list().ofMaxSize(24).map(l -> {
            StringBuilder sb = new StringBuilder();
            l.forEach(sb::appendCodePoint);
            return sb.toString();
        });
    }

    static Arbitrary<String> optText() {
        return text().injectNull(0.3);
    }

    /** Full u64 range in a long (negative = above Long.MAX_VALUE), with the edge cases 0, 2^63-1, 2^63, 2^64-1. */
    static Arbitrary<Long> u64() {
        return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, Long.MAX_VALUE, Long.MIN_VALUE, -1L));
    }

    static Arbitrary<Long> optU64() {
        return u64().injectNull(0.3);
    }

    /** Full u32 range in an int. */
    static Arbitrary<Integer> u32() {
        return Arbitraries.oneOf(Arbitraries.integers(), Arbitraries.of(0, Integer.MAX_VALUE, Integer.MIN_VALUE, -1));
    }

    static Arbitrary<Integer> optU32() {
        return u32().injectNull(0.3);
    }

    static Arbitrary<Integer> u16() {
        return Arbitraries.integers().between(0, 0xFFFF);
    }

    /** Mostly small payloads, sometimes empty, sometimes large (50-300 KB, filled from a seed for speed). */
    static Arbitrary<byte[]> payload() {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        Arbitrary<byte[]> large = Combinators.combine(Arbitraries.integers().between(50_000, 300_000), Arbitraries.longs())
            .as((n, seed) -> {
                byte[] b = new byte[n];
                new Random(seed).nextBytes(b);
                return b;
            }).withoutEdgeCases();
        return Arbitraries.frequencyOf(Tuple.of(30, small), Tuple.of(3, Arbitraries.just(new byte[0])),
            Tuple.of(1, large));
    }

    static Arbitrary<List<byte[]>> payloads() {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(32);
        return Arbitraries.frequencyOf(Tuple.of(20, small.list().ofMaxSize(8)),
            Tuple.of(1, payload().list().ofMaxSize(3)));
    }

    record Scope(String tenant, String namespace, String name) {
    }

    static Arbitrary<Scope> scope() {
        return Combinators.combine(text(), text(), text()).as(Scope::new);
    }

    static Arbitrary<StartPosition> start() {
        return Arbitraries.oneOf(Arbitraries.of(StartPosition.LATEST, StartPosition.EARLIEST),
            u64().map(StartPosition::offset));
    }

    static Arbitrary<ShardInfo> shardInfo() {
        return Combinators.combine(u32(), u64(), u64(), optText(), optU64(), text().list().ofMaxSize(3).injectNull(0.5),
            optText()).as(ShardInfo::new);
    }

    /** The cluster fields of stream_create / stream_info, each possibly absent. */
    record Replication(String consistency, Integer replicas) {
    }

    static Arbitrary<Replication> replication() {
        return Combinators.combine(optText(), optU32()).as(Replication::new);
    }

    static Arbitrary<LeaderInfo> leader() {
        return Combinators.combine(text(), text(), u64()).as(LeaderInfo::new);
    }

    static Arbitrary<StreamDescription> streamDescription() {
        return Combinators.combine(scope(), u32(), Arbitraries.of(true, false), optText(), optU64(), optU64(),
            shardInfo().list().ofMaxSize(4).injectNull(0.4), replication())
            .as((s, shards, durable, fsync, rb, ra, info, repl) ->
                new StreamDescription(s.tenant, s.namespace, s.name, shards, durable, fsync, rb, ra, info,
                    repl.consistency(), repl.replicas()));
    }

    static Arbitrary<Gap> gap() {
        return Combinators.combine(u64(), optU32(), u64(), u64(), text()).as((sub, shard, a, b, reason) ->
            Long.compareUnsigned(a, b) <= 0 ? new Gap(sub, shard, a, b, reason) : new Gap(sub, shard, b, a, reason));
    }

    /**
     * A string-enum field (backing, fsync, op, reason): mostly the defined values, sometimes any text,
     * because the codec passes unknown values through unchanged.
     */
    static Arbitrary<String> word(String... known) {
        return Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.of(known)), Tuple.of(1, text()));
    }

    static Arbitrary<CacheEntry> cacheEntry() {
        return Combinators.combine(text(), Arbitraries.bytes().array(byte[].class).ofMaxSize(32), optU64())
            .as(CacheEntry::new);
    }

    static Arbitrary<WatchSnapshot> watchSnapshot() {
        Arbitrary<List<CacheEntry>> entries = Arbitraries.frequencyOf(
            Tuple.of(10, cacheEntry().list().ofMaxSize(6)),
            Tuple.of(1, Combinators.combine(text(), payload(), optU64()).as(CacheEntry::new).list().ofMaxSize(2)));
        return Combinators.combine(u64(), entries, Arbitraries.of(true, false)).as(WatchSnapshot::new);
    }

    /** put carries a value (as the broker sends it); the other ops mostly not, but the codec does not care. */
    static Arbitrary<WatchChange> watchChange() {
        Arbitrary<String> op = word(WatchChange.OP_PUT, WatchChange.OP_DELETE, WatchChange.OP_EXPIRE,
            WatchChange.OP_EVICT);
        return Combinators.combine(u64(), text(), op, payload(), optU64(), Arbitraries.integers().between(0, 9))
            .as((off, k, o, v, exp, dice) -> new WatchChange(off, k, o,
                o.equals(WatchChange.OP_PUT) || dice == 0 ? v : null, exp));
    }

    /** A generator for each message type. */
    static Map<MessageType, Arbitrary<? extends Message>> byType() {
        Map<MessageType, Arbitrary<? extends Message>> m = new EnumMap<>(MessageType.class);
        m.put(MessageType.AUTH, Combinators.combine(text(), text(), u16().injectNull(0.3)).as(Auth::new));
        m.put(MessageType.AUTH_OK, u16().map(AuthOk::new));
        m.put(MessageType.PUBLISH, Combinators.combine(scope(), payload(), optU64(),
                Arbitraries.of(AckMode.class).injectNull(0.3), optText(), optU32())
            .as((s, p, r, a, k, sh) -> new Publish(s.tenant, s.namespace, s.name, p, r, a, k, sh)));
        m.put(MessageType.PUBLISH_BATCH, Combinators.combine(scope(), payloads(), optU64(),
                Arbitraries.of(AckMode.class).injectNull(0.3), optText(), optU32())
            .as((s, p, r, a, k, sh) -> new PublishBatch(s.tenant, s.namespace, s.name, p, r, a, k, sh)));
        m.put(MessageType.SUBSCRIBE, Combinators.combine(scope(), optU64(), start().injectNull(0.3), optU32(),
                Arbitraries.of(QueuePolicy.class).injectNull(0.3), optU32(), optU64(), optU64())
            .as((s, id, st, sh, qp, qe, qb, inc) ->
                new Subscribe(s.tenant, s.namespace, s.name, id, st, sh, qp, qe, qb, inc)));
        m.put(MessageType.SUBSCRIBED, Combinators.combine(u64(), u32().list().ofMaxSize(6).injectNull(0.4))
            .as(Subscribed::new));
        m.put(MessageType.SUBSCRIBE_CURSOR_ERROR, Combinators.combine(Arbitraries.of(CursorErrorReason.class), u64(), u64())
            .as(SubscribeCursorError::new));
        m.put(MessageType.EVENT_STREAM_HELLO, Combinators.combine(u64(), optU32(), optU64()).as(EventStreamHello::new));
        m.put(MessageType.EVENT, Combinators.combine(scope(), payload(), optU64())
            .as((s, p, o) -> new Event(s.tenant, s.namespace, s.name, p, o)));
        m.put(MessageType.EVENT_BATCH, Combinators.combine(scope(), payloads(), optU64())
            .as((s, p, o) -> new EventBatch(s.tenant, s.namespace, s.name, p, o)));
        m.put(MessageType.CACHE_PUT, Combinators.combine(scope(), text(), payload(), optU64(), optU64())
            .as((s, k, v, r, ttl) -> new CachePut(s.tenant, s.namespace, s.name, k, v, r, ttl)));
        m.put(MessageType.CACHE_GET, Combinators.combine(scope(), text(), optU64())
            .as((s, k, r) -> new CacheGet(s.tenant, s.namespace, s.name, k, r)));
        m.put(MessageType.CACHE_VALUE, Combinators.combine(scope(), text(), payload().injectNull(0.3), optU64())
            .as((s, k, v, r) -> new CacheValue(s.tenant, s.namespace, s.name, k, v, r)));
        m.put(MessageType.CACHE_OK, Combinators.combine(u64(), optU64()).as(CacheOk::new));
        m.put(MessageType.PUBLISH_OK, Combinators.combine(u64(), optU64(), optU32(), optU32()).as(PublishOk::new));
        m.put(MessageType.PUBLISH_ERROR, Combinators.combine(u64(), text(), optText(), leader().injectNull(0.6))
            .as(PublishError::new));
        m.put(MessageType.OK, Arbitraries.just(new Ok()));
        m.put(MessageType.ERROR, Combinators.combine(text(), optText(), optU64(), optU64(), leader().injectNull(0.6))
            .as(ErrorMessage::new));
        m.put(MessageType.GAP, gap());
        m.put(MessageType.STREAM_CREATE, Combinators.combine(scope(), optU32(), Arbitraries.of(true, false).injectNull(0.3),
                optText(), optU64(), optU64(), optU64(), replication())
            .as((s, sh, d, f, rb, ra, r, repl) -> new StreamCreate(s.tenant, s.namespace, s.name, sh, d, f, rb, ra, r,
                repl.consistency(), repl.replicas())));
        m.put(MessageType.CLUSTER_STATUS, optU64().map(Message.ClusterStatus::new));
        Arbitrary<ClusterNodeStatus> clusterNode = Combinators.combine(text(), optText(), text()).as(ClusterNodeStatus::new);
        Arbitrary<ReplicaLag> lag = Combinators.combine(text(), u64()).as(ReplicaLag::new);
        Arbitrary<ClusterShardStatus> clusterShard = Combinators.combine(text(), text(), u32(), text(), optText(), u64(),
                text().list().ofMaxSize(3), text())
            .flatAs((kind, name, shard, cons, leader, epoch, replicas, status) -> Combinators.combine(optU64(), optU64(),
                    lag.list().ofMaxSize(2).injectNull(0.5))
                .as((hwm, end, lags) -> new ClusterShardStatus(kind, name, shard, cons, leader, epoch, replicas, status,
                    hwm, end, lags)));
        m.put(MessageType.CLUSTER_STATUS_RESULT, Combinators.combine(text(), clusterNode.list().ofMaxSize(3),
                clusterShard.list().ofMaxSize(3), optU64()).as(Message.ClusterStatusResult::new));
        m.put(MessageType.STREAM_DESCRIBE, Combinators.combine(scope(), optU64())
            .as((s, r) -> new StreamDescribe(s.tenant, s.namespace, s.name, r)));
        m.put(MessageType.STREAM_LIST, Combinators.combine(text(), optText(), optU64()).as(StreamList::new));
        m.put(MessageType.STREAM_INFO, Combinators.combine(streamDescription(), optU64()).as(StreamInfo::new));
        m.put(MessageType.STREAM_DELETE, Combinators.combine(scope(), Arbitraries.of(true, false).injectNull(0.3), optU64())
            .as((s, f, r) -> new Message.StreamDelete(s.tenant, s.namespace, s.name, f, r)));
        m.put(MessageType.STREAM_DELETED, Combinators.combine(scope(), optU64())
            .as((s, r) -> new Message.StreamDeleted(s.tenant, s.namespace, s.name, r)));
        m.put(MessageType.STREAM_LIST_RESULT, Combinators.combine(streamDescription().list().ofMaxSize(3), optU64())
            .as(StreamListResult::new));
        m.put(MessageType.CACHE_DELETE, Combinators.combine(scope(), text(), optU64())
            .as((s, k, r) -> new CacheDelete(s.tenant, s.namespace, s.name, k, r)));
        Arbitrary<String> backing = word(CacheInfo.BACKING_MEMORY, CacheInfo.BACKING_LOG);
        Arbitrary<String> fsync = word("on_commit", "periodic", "none");
        Arbitrary<String> consistency = word("leader", "quorum");
        m.put(MessageType.CACHE_CREATE, Combinators.combine(scope(), backing.injectNull(0.3), optU64(), optU64(),
                fsync.injectNull(0.3), optU64(), consistency.injectNull(0.5))
            .as((s, b, ttl, max, f, r, c) -> new CacheCreate(s.tenant, s.namespace, s.name, b, ttl, max, f, r, c)));
        m.put(MessageType.CACHE_DESCRIBE, Combinators.combine(scope(), optU64())
            .as((s, r) -> new CacheDescribe(s.tenant, s.namespace, s.name, r)));
        m.put(MessageType.CACHE_INFO, Combinators.combine(scope(), backing, optU64(), u64(), fsync.injectNull(0.3),
                optU64(), optU64(), Combinators.combine(optU64(), consistency.injectNull(0.5)).as(Tuple::of))
            .as((s, b, ttl, max, f, n, next, rc) ->
                new CacheInfo(s.tenant, s.namespace, s.name, b, ttl, max, f, n, next, rc.get1(), rc.get2())));
        m.put(MessageType.CACHE_DROP, Combinators.combine(scope(), Arbitraries.of(true, false).injectNull(0.3), optU64())
            .as((s, f, r) -> new Message.CacheDrop(s.tenant, s.namespace, s.name, f, r)));
        m.put(MessageType.CACHE_DROPPED, Combinators.combine(scope(), optU64())
            .as((s, r) -> new Message.CacheDropped(s.tenant, s.namespace, s.name, r)));
        m.put(MessageType.CACHE_LIST, Combinators.combine(text(), optText(), optU64()).as(Message.CacheList::new));
        Arbitrary<CacheDescription> cacheDescription = Combinators.combine(scope(), backing, optU64(), u64(),
                fsync.injectNull(0.3), consistency.injectNull(0.5))
            .as((s, b, ttl, max, f, c) -> new CacheDescription(s.tenant, s.namespace, s.name, b, ttl, max, f, c));
        m.put(MessageType.CACHE_LIST_RESULT, Combinators.combine(cacheDescription.list().ofMaxSize(3), optU64())
            .as(Message.CacheListResult::new));
        m.put(MessageType.CACHE_WATCH, Combinators.combine(scope(), optText(), optU64(), optU32(), optU64())
            .as((s, pre, from, q, r) -> new CacheWatch(s.tenant, s.namespace, s.name, pre, from, q, r)));
        m.put(MessageType.WATCH_SNAPSHOT, watchSnapshot());
        m.put(MessageType.WATCH_CHANGE, watchChange());
        m.put(MessageType.WATCH_ENDED, Combinators.combine(u64(),
                word(WatchEnded.REASON_OVERFLOW, WatchEnded.REASON_SHUTDOWN, WatchEnded.REASON_ERROR), optText())
            .as(WatchEnded::new));
        Arbitrary<Integer> u32i = Arbitraries.integers();
        m.put(MessageType.MUX_SUBSCRIBE, Combinators.combine(u64(), scope(), start().injectNull(0.3), optU32(),
                Arbitraries.of(QueuePolicy.class).injectNull(0.5), optU32(), optU64(), optU64())
            .as((id, s, st, sh, qp, qe, qb, inc) -> new Message.MuxSubscribe(id, s.tenant, s.namespace, s.name, st, sh,
                qp, qe, qb, inc, 8192)));
        m.put(MessageType.MUX_SUBSCRIBED, Combinators.combine(u64(), u64(), u32i.list().ofMaxSize(4),
                Arbitraries.of(true, false))
            .as((id, sub, shards, inc) -> new Message.MuxSubscribed(id, sub, shards,
                shards.stream().map(x -> x ^ 5).toList(), inc ? shards.stream().map(x -> (long) x * 31L - 7L).toList()
                    : null)));
        m.put(MessageType.CREDIT, Combinators.combine(u32i, u32i).as(Message.Credit::new));
        m.put(MessageType.UNSUBSCRIBE, u64().map(Message.Unsubscribe::new));
        m.put(MessageType.SUBSCRIPTION_ENDED, Combinators.combine(u32i, text(), text()).as(Message.SubscriptionEnded::new));
        if (m.size() != MessageType.values().length) {
            throw new IllegalStateException("a message type has no generator");
        }
        return m;
    }

    /** Any message, every type equally likely. */
    static Arbitrary<Message> messages() {
        List<Arbitrary<Message>> all = new java.util.ArrayList<>();
        byType().values().forEach(a -> all.add(a.map(x -> (Message) x)));
        return Arbitraries.oneOf(all);
    }

    static Arbitrary<BinaryPublishBatch> publishBatch() {
        return Combinators.combine(scope(), payloads())
            .as((s, p) -> new BinaryPublishBatch(s.tenant, s.namespace, s.name, p));
    }

    static Arbitrary<AckMode> binaryAckMode() {
        return Arbitraries.of(AckMode.PER_MESSAGE, AckMode.PER_BATCH);
    }

    /** Every binary layout; ack error texts stay within the 512-byte limit (truncation is tested separately). */
    static Arbitrary<BinaryPayload> binaryPayloads() {
        Arbitrary<BinaryPayload> publish = publishBatch().map(b -> b);
        Arbitrary<BinaryPayload> acked = Combinators.combine(u64(), binaryAckMode(), publishBatch())
            .as(BinaryAckedPublishBatch::new);
        Arbitrary<BinaryPayload> ack = Combinators.combine(u64(), text().injectNull(0.4))
            .as((id, msg) -> msg == null ? BinaryPublishAck.ok(id) : BinaryPublishAck.error(id, msg));
        Arbitrary<BinaryPayload> event = Combinators.combine(u64(), optU64(), payloads()).as(BinaryEventBatch::new);
        Arbitrary<BinaryPayload> shared = Combinators.combine(optU64(), payloads()).as(BinarySharedEventBatch::new);
        Arbitrary<BinaryPayload> mux = Combinators.combine(Arbitraries.integers().array(int[].class).ofMinSize(1)
                .ofMaxSize(5), u64(), payloads()).as(BinaryMuxEventBatch::new);
        Arbitrary<BinaryPayload> routed = Combinators.combine(u64(), binaryAckMode(), Arbitraries.integers().between(0, 2),
                text(), u32(), publishBatch())
            .as((id, mode, route, key, shard, b) -> new BinaryRoutedPublishBatch(id, mode, route == 1 ? key : null,
                route == 2 ? shard : null, b));
        Arbitrary<BinaryPayload> result = Combinators.combine(u64(), u64(), u32(), u32(), text().injectNull(0.4))
            .as((id, offset, count, shard, msg) -> msg == null ? BinaryPublishResult.ok(id, offset, count, shard)
                : BinaryPublishResult.error(id, msg.isEmpty() ? "internal" : "not_found", msg));
        Arbitrary<Message.WatchChange> change = Combinators.combine(u64(), text(),
                Arbitraries.of(Message.WatchChange.OP_PUT, Message.WatchChange.OP_DELETE, Message.WatchChange.OP_EXPIRE,
                    Message.WatchChange.OP_EVICT), Arbitraries.bytes().array(byte[].class).ofMaxSize(64).injectNull(0.3),
                u64().injectNull(0.5))
            .as(Message.WatchChange::new);
        Arbitrary<BinaryPayload> watch = change.list().ofMinSize(1).ofMaxSize(5).map(BinaryWatchChanges::new);
        return Arbitraries.oneOf(publish, acked, ack, event, shared, mux, routed, result, watch);
    }

    /** Any frame this codec can produce, JSON or binary. */
    static Arbitrary<byte[]> validFrames() {
        return Arbitraries.oneOf(messages().map(WireCodec::encodeFrame), binaryPayloads().map(WireCodec::encodeFrame));
    }
}
