package dev.felix.wire;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The project's own golden frames: one message of every kind, built here from the field tables and
 * examples of {@code docs/wire.md}. Their encodings, written by this project's encoder, are committed
 * under {@code src/test/resources/golden/NAME.hex} and checked byte for byte by {@link GoldenFramesTest}
 * in every checkout, with nothing beside it. Those named like one of upstream's 13 conformance vectors
 * carry the same message, and {@link ConformanceVectorsTest} checks they equal upstream's bytes
 * whenever those vectors are present.
 *
 * <p>To add a frame: add an entry, run {@code mvn -pl felix-wire test -Dtest=GoldenFramesTest
 * -Dfelix.golden.write=true} once, read the new file and commit it.
 */
final class GoldenFrames {
    private GoldenFrames() {
    }

    /** Upstream vector names whose messages this catalogue repeats (all 13). */
    static final List<String> UPSTREAM_NAMES = List.copyOf(ConformanceVectorsTest.EXPECTED.stream().sorted().toList());

    static final Map<String, WirePayload> ALL;

    static {
        Map<String, WirePayload> m = new LinkedHashMap<>();
        // ---- upstream wire v1 (the messages of upstream's 13 vectors, from wire.md §3-§5)
        m.put("auth_with_capabilities", new Message.Auth("t1", "demo-token", 25));
        m.put("auth_ok", new Message.AuthOk(25));
        m.put("publish", new Message.Publish("t1", "default", "demo", utf8("hello")));
        m.put("subscribe", new Message.Subscribe("t1", "default", "demo", null, null, null, null, null, null, null));
        m.put("event", new Message.Event("t1", "default", "demo", utf8("world"), null));
        m.put("cache_put", new Message.CachePut("t1", "default", "primary", "demo-key", utf8("cached"), null, 1000L));
        m.put("cache_get", new Message.CacheGet("t1", "default", "primary", "demo-key", null));
        m.put("cache_value", new Message.CacheValue("t1", "default", "primary", "demo-key", utf8("cached"), null));
        m.put("ok", new Message.Ok());
        m.put("error", new Message.ErrorMessage("oops", null, null));
        m.put("binary_publish_acked", new BinaryAckedPublishBatch(7, AckMode.PER_BATCH,
                new BinaryPublishBatch("t1", "default", "demo", List.of(utf8("hello")))));
        m.put("binary_publish_ack_ok", BinaryPublishAck.ok(7));
        m.put("binary_publish_ack_error", BinaryPublishAck.error(9, "stream not found"));
        // ---- this project's extensions (wire.md §6-§9): negotiated with capability bits
        m.put("publish_acked_with_key", new Message.Publish("t1", "default", "orders", utf8("o-1"), 11L,
                AckMode.PER_MESSAGE, "customer-42", null));
        m.put("publish_batch", new Message.PublishBatch("t1", "default", "demo", List.of(utf8("a"), utf8("b")), 12L,
                AckMode.PER_BATCH, null, 2));
        m.put("publish_ok", new Message.PublishOk(11, 41L, 1, 0));
        m.put("publish_error", new Message.PublishError(9, "slow down", "overloaded"));
        m.put("error_with_code", new Message.ErrorMessage("no such stream", "not_found", 3L));
        m.put("subscribe_from_offset", new Message.Subscribe("t1", "default", "demo", null, new StartPosition.AtOffset(42),
                1, QueuePolicy.DROP_OLD, 512, 1_048_576L, 7L));
        m.put("subscribe_from_earliest", new Message.Subscribe("t1", "default", "demo", null, new StartPosition.Earliest(),
                null, null, null, null, null));
        m.put("subscribed", new Message.Subscribed(5, List.of(0, 1)));
        m.put("subscribe_cursor_error", new Message.SubscribeCursorError(CursorErrorReason.TOO_OLD, 3, 100));
        m.put("event_stream_hello", new Message.EventStreamHello(5, 1, 123_456_789L));
        m.put("event_with_offset", new Message.Event("t1", "default", "demo", utf8("world"), 42L));
        m.put("event_batch", new Message.EventBatch("t1", "default", "demo", List.of(utf8("x"), utf8("y")), 40L));
        m.put("gap", new Message.Gap(5, 0, 10, 19, "subscriber_queue_overflow"));
        m.put("stream_create", new Message.StreamCreate("t1", "ops", "ledger", 4, true, "on_commit", 1_000_000L,
                604_800_000L, 21L));
        m.put("stream_describe", new Message.StreamDescribe("t1", "ops", "ledger", 22L));
        m.put("stream_list", new Message.StreamList("t1", "ops", 23L));
        m.put("stream_info", new Message.StreamInfo(new StreamDescription("t1", "ops", "ledger", 2, true, "on_commit",
                1_000_000L, 604_800_000L, List.of(new ShardInfo(0, 0, 17), new ShardInfo(1, 5, 9))), 22L));
        m.put("cache_put_with_request", new Message.CachePut("t1", "default", "primary", "k", utf8("v"), 5L, null));
        m.put("cache_ok", new Message.CacheOk(5, 17L));
        m.put("cache_delete", new Message.CacheDelete("t1", "default", "primary", "k", 6L));
        m.put("cache_create", new Message.CacheCreate("t1", "default", "config", "log", 60_000L, 100_000L, "periodic", 21L));
        m.put("cache_create_quorum", new Message.CacheCreate("t1", "default", "ledger", "log", null, null, "on_commit",
                24L, "quorum"));
        m.put("cache_watch", new Message.CacheWatch("t1", "default", "config", "routing/", 17L, 64, 30L));
        m.put("watch_snapshot", new Message.WatchSnapshot(17, List.of(new CacheEntry("routing/a", utf8("1"), null),
                new CacheEntry("routing/b", utf8("2"), 1_700_000_000_000L)), true));
        m.put("watch_change", new Message.WatchChange(18, "routing/a", "put", utf8("3"), null));
        m.put("watch_ended", new Message.WatchEnded(19, "overflow", "the watcher fell behind"));
        m.put("binary_publish_batch", new BinaryPublishBatch("t1", "default", "demo", List.of(utf8("a"), utf8("bc"))));
        m.put("binary_event_batch_shared_with_offset", new BinarySharedEventBatch(40L, List.of(utf8("x"), utf8("yz"))));
        m.put("binary_event_batch_shared", new BinarySharedEventBatch(null, List.of(utf8("x"))));
        // ---- the second capability word and the routed binary publish (wire.md §3, §5.7, §5.8)
        m.put("auth_with_second_word", new Message.Auth("t1", "demo-token", 0xFF3F, 0x0001));
        m.put("auth_ok_with_second_word", new Message.AuthOk(0xDF3F, 0x0001));
        m.put("binary_publish_routed_key", new BinaryRoutedPublishBatch(7, AckMode.PER_BATCH, "k", null,
                new BinaryPublishBatch("t1", "default", "demo", List.of(utf8("hello")))));
        m.put("binary_publish_routed_shard", new BinaryRoutedPublishBatch(8, AckMode.PER_MESSAGE, null, 2,
                new BinaryPublishBatch("t1", "default", "demo", List.of(utf8("a"), utf8("bc")))));
        m.put("binary_publish_routed_any", new BinaryRoutedPublishBatch(9, AckMode.PER_MESSAGE, null, null,
                new BinaryPublishBatch("t1", "default", "demo", List.of(utf8("x")))));
        m.put("binary_publish_result_ok", BinaryPublishResult.ok(7, 100, 2, 1));
        m.put("binary_publish_result_error", BinaryPublishResult.error(9, "not_found", "stream not found"));
        // ---- binary watch changes (wire.md §5.9)
        m.put("binary_watch_changes", new BinaryWatchChanges(List.of(
                new Message.WatchChange(17, "user:1", Message.WatchChange.OP_PUT, utf8("hello"), 1700000060000L),
                new Message.WatchChange(18, "user:2", Message.WatchChange.OP_DELETE, null, null))));
        ALL = Collections.unmodifiableMap(m);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
