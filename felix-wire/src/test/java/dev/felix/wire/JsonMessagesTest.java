package dev.felix.wire;

import static dev.felix.wire.TestSupport.hex;
import static dev.felix.wire.TestSupport.json;
import static dev.felix.wire.TestSupport.str;
import static dev.felix.wire.TestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.wire.Message.AuthOk;
import dev.felix.wire.Message.CacheCreate;
import dev.felix.wire.Message.CacheDelete;
import dev.felix.wire.Message.CacheDescribe;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JSON messages the upstream vectors do not cover (wire.md §12 "What the vectors do not cover") and
 * our extensions. Every expected byte string is written by hand from the key tables of wire.md §4.2
 * and docs/wire.md: {@code type} first, declaration order, optional keys omitted, the two
 * always-written keys written as {@code null}, standard padded base64.
 */
class JsonMessagesTest {

    /** encode(m) == expected, decode(expected) == m, and the frame is the JSON header + those bytes. */
    static void canonical(Message m, String expected) throws WireException {
        assertThat(str(WireCodec.encodeJson(m))).isEqualTo(expected);
        assertThat(json(expected)).isEqualTo(m);
        byte[] payload = utf8(expected);
        assertThat(hex(WireCodec.encodeFrame(m))).isEqualTo(TestSupport.jsonHeaderHex(payload.length) + hex(payload));
    }

    static final byte[] HELLO = utf8("hello");

    // ------------------------------------------------------------------ upstream, not in the vectors

    @Test
    void subscribeWithEachStartPosition() throws Exception {
        String base = "{\"type\":\"subscribe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\"";
        canonical(new Subscribe("t1", "default", "demo", StartPosition.offset(42)), base + ",\"start\":{\"offset\":42}}");
        canonical(new Subscribe("t1", "default", "demo", StartPosition.LATEST), base + ",\"start\":\"latest\"}");
        canonical(new Subscribe("t1", "default", "demo", StartPosition.EARLIEST), base + ",\"start\":\"earliest\"}");
        canonical(new Subscribe("t1", "default", "demo", null, StartPosition.offset(-1L), null, null, null, null),
            base + ",\"start\":{\"offset\":18446744073709551615}}");
        canonical(new Subscribe("t1", "default", "demo", 5L, StartPosition.EARLIEST, null, null, null, null),
            base + ",\"subscription_id\":5,\"start\":\"earliest\"}");
    }

    @Test
    void subscribedAndEventStreamHello() throws Exception {
        canonical(new Subscribed(7), "{\"type\":\"subscribed\",\"subscription_id\":7}");
        canonical(new EventStreamHello(7), "{\"type\":\"event_stream_hello\",\"subscription_id\":7}");
        canonical(new EventStreamHello(Long.MIN_VALUE),
            "{\"type\":\"event_stream_hello\",\"subscription_id\":9223372036854775808}");
    }

    @Test
    void subscribeCursorError() throws Exception {
        canonical(new SubscribeCursorError(CursorErrorReason.TOO_OLD, 5, 10),
            "{\"type\":\"subscribe_cursor_error\",\"reason\":\"too_old\",\"requested\":5,\"available\":10}");
        canonical(new SubscribeCursorError(CursorErrorReason.IN_FUTURE, 99, 42),
            "{\"type\":\"subscribe_cursor_error\",\"reason\":\"in_future\",\"requested\":99,\"available\":42}");
    }

    @Test
    void publishOkPublishErrorCacheOk() throws Exception {
        canonical(new PublishOk(8), "{\"type\":\"publish_ok\",\"request_id\":8}");
        canonical(new PublishOk(-1L), "{\"type\":\"publish_ok\",\"request_id\":18446744073709551615}");
        canonical(new PublishError(9, "stream not found"),
            "{\"type\":\"publish_error\",\"request_id\":9,\"message\":\"stream not found\"}");
        canonical(new CacheOk(5), "{\"type\":\"cache_ok\",\"request_id\":5}");
    }

    @Test
    void cacheValueMissIsAnExplicitNull() throws Exception {
        canonical(new CacheValue("t1", "default", "primary", "demo-key", null, null),
            "{\"type\":\"cache_value\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
                + "\"key\":\"demo-key\",\"value\":null}");
        canonical(new CacheValue("t1", "default", "primary", "demo-key", null, 6L),
            "{\"type\":\"cache_value\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
                + "\"key\":\"demo-key\",\"value\":null,\"request_id\":6}");
    }

    @Test
    void cachePutTtlIsAlwaysWrittenAndMayBeAbsentOnInput() throws Exception {
        CachePut noTtl = new CachePut("t1", "default", "primary", "k", utf8("cached"), null, null);
        canonical(noTtl, "{\"type\":\"cache_put\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
            + "\"key\":\"k\",\"value\":\"Y2FjaGVk\",\"ttl_ms\":null}");
        // the key may be left out on input; it comes back as null
        assertThat(json("{\"type\":\"cache_put\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
            + "\"key\":\"k\",\"value\":\"Y2FjaGVk\"}")).isEqualTo(noTtl);
        canonical(new CachePut("t1", "default", "primary", "k", utf8("cached"), 5L, 1000L),
            "{\"type\":\"cache_put\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
                + "\"key\":\"k\",\"value\":\"Y2FjaGVk\",\"request_id\":5,\"ttl_ms\":1000}");
    }

    @Test
    void eventWithOffsetAndEventBatch() throws Exception {
        canonical(new Event("t1", "default", "demo", utf8("world"), 3L),
            "{\"type\":\"event\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payload\":\"d29ybGQ=\",\"offset\":3}");
        canonical(new EventBatch("t1", "default", "demo", List.of(utf8("alpha"), utf8("beta")), 10L),
            "{\"type\":\"event_batch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payloads\":[\"YWxwaGE=\",\"YmV0YQ==\"],\"base_offset\":10}");
    }

    @Test
    void publishBatchAndAckedPublish() throws Exception {
        canonical(new PublishBatch("t1", "default", "demo", List.of(utf8("alpha"), utf8("beta")), 9L,
                AckMode.PER_BATCH, null, null),
            "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payloads\":[\"YWxwaGE=\",\"YmV0YQ==\"],\"request_id\":9,\"ack\":\"per_batch\"}");
        canonical(new PublishBatch("t1", "default", "demo", List.of()),
            "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payloads\":[]}");
        canonical(new Publish("t1", "default", "demo", HELLO, 8L, AckMode.PER_MESSAGE, null, null),
            "{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payload\":\"aGVsbG8=\",\"request_id\":8,\"ack\":\"per_message\"}");
        canonical(new Publish("t1", "default", "demo", HELLO, null, AckMode.NONE, null, null),
            "{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payload\":\"aGVsbG8=\",\"ack\":\"none\"}");
        canonical(new Publish("t1", "default", "demo", new byte[0]),
            "{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\",\"payload\":\"\"}");
    }

    @Test
    void legacyAuthAndFullFlags() throws Exception {
        canonical(new Message.Auth("t1", "tok", null), "{\"type\":\"auth\",\"tenant_id\":\"t1\",\"token\":\"tok\"}");
        canonical(new Message.Auth("t1", "tok", 0x3F3F),
            "{\"type\":\"auth\",\"tenant_id\":\"t1\",\"token\":\"tok\",\"client_flags\":16191}");
        canonical(new AuthOk(63), "{\"type\":\"auth_ok\",\"server_flags\":63}");
        canonical(new AuthOk(65535), "{\"type\":\"auth_ok\",\"server_flags\":65535}");
    }

    @Test
    void stringsAreEscapedExactlyAsSerdeJsonDoes() throws Exception {
        // serde_json: \" \\ \b \f \n \r \t short escapes, other controls as lowercase u00xx escapes,
        // '/' and every non-ASCII character (also outside the BMP) written raw as UTF-8.
        StringBuilder in = new StringBuilder();
        StringBuilder expected = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            in.append(c);
            switch (c) {
                case '\b': expected.append("\\b"); break;
                case '\f': expected.append("\\f"); break;
                case '\n': expected.append("\\n"); break;
                case '\r': expected.append("\\r"); break;
                case '\t': expected.append("\\t"); break;
                default: expected.append(String.format("\\u%04x", (int) c));
            }
        }
        in.append("\"\\/\u007få€\uD83D\uDE00");
        expected.append("\\\"\\\\/\u007få€\uD83D\uDE00");
        ErrorMessage m = new ErrorMessage(in.toString());
        canonical(m, "{\"type\":\"error\",\"message\":\"" + expected + "\"}");
        assertThat(hex(WireCodec.encodeJson(new ErrorMessage("\uD83D\uDE00")))).contains("f09f9880");
    }

    // ------------------------------------------------------------------ extensions

    @Test
    void errorWithCodeAndRequestId() throws Exception {
        canonical(new ErrorMessage("no such stream", ErrorCode.NOT_FOUND.code(), 3L),
            "{\"type\":\"error\",\"message\":\"no such stream\",\"code\":\"not_found\",\"request_id\":3}");
        canonical(new ErrorMessage("oops", "bad_request", null),
            "{\"type\":\"error\",\"message\":\"oops\",\"code\":\"bad_request\"}");
        canonical(new PublishError(9, "slow down", ErrorCode.OVERLOADED.code()),
            "{\"type\":\"publish_error\",\"request_id\":9,\"message\":\"slow down\",\"code\":\"overloaded\"}");
    }

    @Test
    void shardFieldsOnPublishSubscribeAndReplies() throws Exception {
        canonical(new Publish("t1", "default", "demo", HELLO, 8L, AckMode.PER_MESSAGE, "user-42", null),
            "{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payload\":\"aGVsbG8=\",\"request_id\":8,\"ack\":\"per_message\",\"key\":\"user-42\"}");
        canonical(new PublishBatch("t1", "default", "demo", List.of(HELLO), null, AckMode.NONE, null, -1),
            "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"payloads\":[\"aGVsbG8=\"],\"ack\":\"none\",\"shard\":4294967295}");
        canonical(new Subscribe("t1", "default", "demo", null, StartPosition.offset(42), 3, QueuePolicy.CATCH_UP,
                1024, 1L << 20),
            "{\"type\":\"subscribe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"start\":{\"offset\":42},\"shard\":3,\"queue_policy\":\"catch_up\",\"queue_events\":1024,"
                + "\"queue_bytes\":1048576}");
        canonical(new Subscribed(7, List.of(0, 1, 2)), "{\"type\":\"subscribed\",\"subscription_id\":7,\"shards\":[0,1,2]}");
        canonical(new EventStreamHello(7, 2), "{\"type\":\"event_stream_hello\",\"subscription_id\":7,\"shard\":2}");
        canonical(new PublishOk(8, 100L, 2, 1),
            "{\"type\":\"publish_ok\",\"request_id\":8,\"offset\":100,\"count\":2,\"shard\":1}");
    }

    @Test
    void everyQueuePolicy() throws Exception {
        for (QueuePolicy q : QueuePolicy.values()) {
            Subscribe s = new Subscribe("t", "n", "s", null, null, null, q, null, null);
            canonical(s, "{\"type\":\"subscribe\",\"tenant_id\":\"t\",\"namespace\":\"n\",\"stream\":\"s\","
                + "\"queue_policy\":\"" + q.wireName() + "\"}");
        }
    }

    @Test
    void gapNotice() throws Exception {
        canonical(new Gap(7, null, 10, 19, "queue_overflow"),
            "{\"type\":\"gap\",\"subscription_id\":7,\"from\":10,\"to\":19,\"reason\":\"queue_overflow\"}");
        canonical(new Gap(7, 3, 5, 5, "retention"),
            "{\"type\":\"gap\",\"subscription_id\":7,\"shard\":3,\"from\":5,\"to\":5,\"reason\":\"retention\"}");
    }

    @Test
    void streamAdminRequests() throws Exception {
        canonical(new StreamCreate("t1", "default", "orders", 4, true, "on_commit", 1L << 30, 86_400_000L, 11L),
            "{\"type\":\"stream_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"orders\","
                + "\"shards\":4,\"durable\":true,\"fsync\":\"on_commit\",\"retention_bytes\":1073741824,"
                + "\"retention_age_ms\":86400000,\"request_id\":11}");
        canonical(new StreamCreate("t1", "default", "tmp", null, false, null, null, null, null),
            "{\"type\":\"stream_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"tmp\","
                + "\"durable\":false}");
        canonical(new StreamCreate("t1", "default", "presence", null, false, null, null, null, null, null, null, true),
            "{\"type\":\"stream_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"presence\","
                + "\"durable\":false,\"no_replay\":true}");
        canonical(new StreamDescribe("t1", "default", "orders", 12L),
            "{\"type\":\"stream_describe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"orders\","
                + "\"request_id\":12}");
        canonical(new StreamList("t1", null, null), "{\"type\":\"stream_list\",\"tenant_id\":\"t1\"}");
        canonical(new StreamList("t1", "default", 13L),
            "{\"type\":\"stream_list\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"request_id\":13}");
    }

    static final StreamDescription ORDERS = new StreamDescription("t1", "default", "orders", 2, true, "on_commit",
        null, 3_600_000L, List.of(new ShardInfo(0, 0, 10), new ShardInfo(1, 5, 7)));
    static final String ORDERS_JSON = "\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"orders\","
        + "\"shards\":2,\"durable\":true,\"fsync\":\"on_commit\",\"retention_age_ms\":3600000,"
        + "\"shard_info\":[{\"shard\":0,\"base_offset\":0,\"next_offset\":10},"
        + "{\"shard\":1,\"base_offset\":5,\"next_offset\":7}]";
    static final StreamDescription TMP = new StreamDescription("t1", "default", "tmp", 1, false, null, null, null,
        null);
    static final String TMP_JSON = "\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"tmp\","
        + "\"shards\":1,\"durable\":false";

    @Test
    void streamInfoIsFlat() throws Exception {
        canonical(new StreamInfo(ORDERS, 12L), "{\"type\":\"stream_info\"," + ORDERS_JSON + ",\"request_id\":12}");
        canonical(new StreamInfo(TMP, null), "{\"type\":\"stream_info\"," + TMP_JSON + "}");
    }

    @Test
    void streamListResultNestsTheSameObjects() throws Exception {
        canonical(new StreamListResult(List.of(ORDERS, TMP), 13L),
            "{\"type\":\"stream_list_result\",\"streams\":[{" + ORDERS_JSON + "},{" + TMP_JSON + "}],\"request_id\":13}");
        canonical(new StreamListResult(List.of(), null), "{\"type\":\"stream_list_result\",\"streams\":[]}");
    }

    @Test
    void incarnationOnSubscribeAndEventStreamHello() throws Exception {
        canonical(new Subscribe("t1", "default", "demo", null, StartPosition.offset(42), null, null, null, null, 3L),
            "{\"type\":\"subscribe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"start\":{\"offset\":42},\"incarnation\":3}");
        // after every other extension field
        canonical(new Subscribe("t1", "default", "demo", 5L, StartPosition.offset(42), 3, QueuePolicy.CATCH_UP, 1024,
                1L << 20, -1L),
            "{\"type\":\"subscribe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
                + "\"subscription_id\":5,\"start\":{\"offset\":42},\"shard\":3,\"queue_policy\":\"catch_up\","
                + "\"queue_events\":1024,\"queue_bytes\":1048576,\"incarnation\":18446744073709551615}");
        canonical(new EventStreamHello(7, 2, 3L),
            "{\"type\":\"event_stream_hello\",\"subscription_id\":7,\"shard\":2,\"incarnation\":3}");
        canonical(new EventStreamHello(7, null, 9_223_372_036_854_775_807L),
            "{\"type\":\"event_stream_hello\",\"subscription_id\":7,\"incarnation\":9223372036854775807}");
        // the shorter constructors leave it out
        assertThat(new Subscribe("t", "n", "s", null, null, null, null, null, null).incarnation()).isNull();
        assertThat(new EventStreamHello(7, 2)).isEqualTo(new EventStreamHello(7, 2, null));
    }

    @Test
    void cacheOkWithOffset() throws Exception {
        canonical(new CacheOk(5, 42L), "{\"type\":\"cache_ok\",\"request_id\":5,\"offset\":42}");
        canonical(new CacheOk(5, 0L), "{\"type\":\"cache_ok\",\"request_id\":5,\"offset\":0}");
        assertThat(new CacheOk(5)).isEqualTo(new CacheOk(5, null));
    }

    @Test
    void cacheDelete() throws Exception {
        canonical(new CacheDelete("t1", "default", "primary", "demo-key", 7L),
            "{\"type\":\"cache_delete\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
                + "\"key\":\"demo-key\",\"request_id\":7}");
        canonical(new CacheDelete("t1", "default", "primary", "demo-key", null),
            "{\"type\":\"cache_delete\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"primary\","
                + "\"key\":\"demo-key\"}");
    }

    @Test
    void cacheAdmin() throws Exception {
        canonical(new CacheCreate("t1", "default", "sessions", "log", 60_000L, 100_000L, "periodic", 21L),
            "{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\","
                + "\"backing\":\"log\",\"ttl_ms\":60000,\"max_entries\":100000,\"fsync\":\"periodic\",\"request_id\":21}");
        canonical(new CacheCreate("t1", "default", "scratch", null, null, null, null, null),
            "{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"scratch\"}");
        canonical(new CacheDescribe("t1", "default", "sessions", 22L),
            "{\"type\":\"cache_describe\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\","
                + "\"request_id\":22}");
        canonical(new CacheInfo("t1", "default", "sessions", "log", 60_000L, 100_000L, "periodic", 2L, 17L, 22L),
            "{\"type\":\"cache_info\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\","
                + "\"backing\":\"log\",\"ttl_ms\":60000,\"max_entries\":100000,\"fsync\":\"periodic\",\"entries\":2,"
                + "\"next_offset\":17,\"request_id\":22}");
        // ttl_ms sits between the two required keys backing and max_entries
        canonical(new CacheInfo("t1", "default", "scratch", "memory", null, -1L, null, null, null, null),
            "{\"type\":\"cache_info\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"scratch\","
                + "\"backing\":\"memory\",\"max_entries\":18446744073709551615}");
    }

    @Test
    void cacheConsistencyIsAnOptionalLastKey() throws Exception {
        // cluster field: after request_id on cache_create and cache_info, after fsync in a cache_list_result element
        canonical(new CacheCreate("t1", "default", "ledger", "log", null, null, "on_commit", 21L, "quorum"),
            "{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"ledger\","
                + "\"backing\":\"log\",\"fsync\":\"on_commit\",\"request_id\":21,\"consistency\":\"quorum\"}");
        canonical(new CacheInfo("t1", "default", "ledger", "log", null, 10L, "on_commit", 0L, 0L, 21L, "quorum"),
            "{\"type\":\"cache_info\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"ledger\","
                + "\"backing\":\"log\",\"max_entries\":10,\"fsync\":\"on_commit\",\"entries\":0,\"next_offset\":0,"
                + "\"request_id\":21,\"consistency\":\"quorum\"}");
        canonical(new Message.CacheListResult(List.of(
                new CacheDescription("t1", "default", "ledger", "log", null, 10L, "on_commit", "quorum"),
                new CacheDescription("t1", "default", "scratch", "memory", null, 5L, null, "leader")), 25L),
            "{\"type\":\"cache_list_result\",\"caches\":[{\"tenant_id\":\"t1\",\"namespace\":\"default\","
                + "\"cache\":\"ledger\",\"backing\":\"log\",\"max_entries\":10,\"fsync\":\"on_commit\","
                + "\"consistency\":\"quorum\"},{\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"scratch\","
                + "\"backing\":\"memory\",\"max_entries\":5,\"consistency\":\"leader\"}],\"request_id\":25}");
        // a frame from a peer that predates the field still decodes, to null (= leader)
        Message old = WireCodec.decodeJson(("{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"cache\":\"c\",\"backing\":\"log\",\"request_id\":3}").getBytes(StandardCharsets.UTF_8));
        assertThat(((CacheCreate) old).consistency()).isNull();
        Message oldInfo = WireCodec.decodeJson(("{\"type\":\"cache_info\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"cache\":\"c\",\"backing\":\"memory\",\"max_entries\":1}").getBytes(StandardCharsets.UTF_8));
        assertThat(((CacheInfo) oldInfo).consistency()).isNull();
        // a value this codec does not know passes through; the broker decides
        canonical(new CacheCreate("t1", "default", "c", "log", null, null, null, null, "eventual"),
            "{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"c\","
                + "\"backing\":\"log\",\"consistency\":\"eventual\"}");
    }

    @Test
    void cacheWatch() throws Exception {
        canonical(new CacheWatch("t1", "default", "sessions", "user:", 17L, 4096, 23L),
            "{\"type\":\"cache_watch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\","
                + "\"prefix\":\"user:\",\"from_offset\":17,\"queue_events\":4096,\"request_id\":23}");
        canonical(new CacheWatch("t1", "default", "sessions", null, null, null, null),
            "{\"type\":\"cache_watch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\"}");
        // an empty prefix is present (it matches every key), not absent
        canonical(new CacheWatch("t1", "default", "sessions", "", null, -1, null),
            "{\"type\":\"cache_watch\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"sessions\","
                + "\"prefix\":\"\",\"queue_events\":4294967295}");
    }

    @Test
    void watchSnapshotChunks() throws Exception {
        canonical(new WatchSnapshot(42, List.of(), true),
            "{\"type\":\"watch_snapshot\",\"offset\":42,\"entries\":[],\"last\":true}");
        canonical(new WatchSnapshot(42, List.of(new CacheEntry("user:1", utf8("alpha"), null),
                new CacheEntry("user:2", utf8("beta"), 1_700_000_000_000L)), false),
            "{\"type\":\"watch_snapshot\",\"offset\":42,\"entries\":[{\"key\":\"user:1\",\"value\":\"YWxwaGE=\"},"
                + "{\"key\":\"user:2\",\"value\":\"YmV0YQ==\",\"expires_at_ms\":1700000000000}],\"last\":false}");
        canonical(new WatchSnapshot(0, List.of(new CacheEntry("", new byte[0], null)), true),
            "{\"type\":\"watch_snapshot\",\"offset\":0,\"entries\":[{\"key\":\"\",\"value\":\"\"}],\"last\":true}");
    }

    @Test
    void watchChangeWithAndWithoutValue() throws Exception {
        canonical(new WatchChange(42, "user:1", WatchChange.OP_PUT, utf8("alpha"), 1_700_000_000_000L),
            "{\"type\":\"watch_change\",\"offset\":42,\"key\":\"user:1\",\"op\":\"put\",\"value\":\"YWxwaGE=\","
                + "\"expires_at_ms\":1700000000000}");
        canonical(new WatchChange(43, "user:1", WatchChange.OP_PUT, HELLO, null),
            "{\"type\":\"watch_change\",\"offset\":43,\"key\":\"user:1\",\"op\":\"put\",\"value\":\"aGVsbG8=\"}");
        canonical(new WatchChange(44, "user:1", WatchChange.OP_DELETE, null, null),
            "{\"type\":\"watch_change\",\"offset\":44,\"key\":\"user:1\",\"op\":\"delete\"}");
        canonical(new WatchChange(-1L, "user:2", WatchChange.OP_EXPIRE, null, null),
            "{\"type\":\"watch_change\",\"offset\":18446744073709551615,\"key\":\"user:2\",\"op\":\"expire\"}");
        canonical(new WatchChange(45, "user:3", WatchChange.OP_EVICT, null, null),
            "{\"type\":\"watch_change\",\"offset\":45,\"key\":\"user:3\",\"op\":\"evict\"}");
    }

    @Test
    void watchEnded() throws Exception {
        canonical(new WatchEnded(44, WatchEnded.REASON_OVERFLOW, "watcher queue full"),
            "{\"type\":\"watch_ended\",\"resume_from\":44,\"reason\":\"overflow\",\"message\":\"watcher queue full\"}");
        canonical(new WatchEnded(0, WatchEnded.REASON_SHUTDOWN, null),
            "{\"type\":\"watch_ended\",\"resume_from\":0,\"reason\":\"shutdown\"}");
    }

    @Test
    void cacheStringEnumsPassThroughUnchecked() throws Exception {
        // backing, fsync, op and reason stay strings: a value this codec does not know is decoded and
        // re-encoded unchanged (the broker and the SDK decide what to do with it)
        canonical(new WatchChange(46, "k", "replace", HELLO, null),
            "{\"type\":\"watch_change\",\"offset\":46,\"key\":\"k\",\"op\":\"replace\",\"value\":\"aGVsbG8=\"}");
        canonical(new WatchChange(47, "k", "put", null, null),
            "{\"type\":\"watch_change\",\"offset\":47,\"key\":\"k\",\"op\":\"put\"}");
        canonical(new CacheCreate("t1", "default", "c", "tiered", null, null, "sometimes", null),
            "{\"type\":\"cache_create\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"c\","
                + "\"backing\":\"tiered\",\"fsync\":\"sometimes\"}");
        canonical(new CacheInfo("t1", "default", "c", "tiered", null, 1, null, null, null, null),
            "{\"type\":\"cache_info\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"cache\":\"c\","
                + "\"backing\":\"tiered\",\"max_entries\":1}");
        canonical(new WatchEnded(1, "rebalance", null),
            "{\"type\":\"watch_ended\",\"resume_from\":1,\"reason\":\"rebalance\"}");
    }

    // ------------------------------------------------------------------ decoding rules

    @Test
    void typeMayAppearAnywhere() throws Exception {
        assertThat(json("{\"message\":\"oops\",\"type\":\"error\"}")).isEqualTo(new ErrorMessage("oops"));
        assertThat(json("{\"x\":{\"type\":\"ok\"},\"subscription_id\":7,\"type\":\"subscribed\"}"))
            .isEqualTo(new Subscribed(7));
        assertThat(json("{\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\",\"payload\":\"aGVsbG8=\","
            + "\"type\":\"publish\"}")).isEqualTo(new Publish("t1", "default", "demo", HELLO));
    }

    @Test
    void unknownKeysAreIgnoredWhateverTheirValue() throws Exception {
        assertThat(json("{\"type\":\"ok\",\"extra\":{\"a\":[1,2.5,{\"b\":null}],\"c\":\"d\"},\"n\":1e99}"))
            .isEqualTo(new Message.Ok());
        assertThat(json("{\"type\":\"subscribed\",\"subscription_id\":7,\"future_field\":[true,false]}"))
            .isEqualTo(new Subscribed(7));
        // nested objects ignore unknown keys too
        assertThat(json("{\"type\":\"stream_list_result\",\"streams\":[{\"tenant_id\":\"t1\",\"namespace\":\"default\","
            + "\"stream\":\"tmp\",\"shards\":1,\"durable\":false,\"new\":1}]}"))
            .isEqualTo(new StreamListResult(List.of(TMP), null));
    }

    @Test
    void optionalKeysAcceptNullAsAbsent() throws Exception {
        assertThat(json("{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
            + "\"payload\":\"aGVsbG8=\",\"request_id\":null,\"ack\":null}"))
            .isEqualTo(new Publish("t1", "default", "demo", HELLO));
    }

    @Test
    void whitespaceAndEscapesAreAcceptedOnInput() throws Exception {
        assertThat(json(" {\n \"type\" : \"ok\" \r\n}\t ")).isEqualTo(new Message.Ok());
        assertThat(json("{\"type\":\"error\",\"message\":\"\\u006f\\u006Fps \\ud83d\\ude00\"}"))
            .isEqualTo(new ErrorMessage("oops \uD83D\uDE00"));
        // base64 given through escapes decodes like the plain text
        assertThat(json("{\"type\":\"event\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\","
            + "\"payload\":\"d29ybGQ\\u003d\"}")).isEqualTo(new Event("t1", "default", "demo", utf8("world"), null));
    }

    @Test
    void decodingFromAByteBufferUsesPositionAndLimitOnly() throws Exception {
        byte[] payload = utf8("xx{\"type\":\"ok\"}yy");
        ByteBuffer heap = ByteBuffer.wrap(payload, 2, 13).slice();
        assertThat(WireCodec.decodeJson(heap)).isEqualTo(new Message.Ok());
        assertThat(heap.position()).isZero();
        ByteBuffer direct = ByteBuffer.allocateDirect(payload.length).put(payload);
        direct.position(2).limit(15);
        assertThat(WireCodec.decodeJson(direct)).isEqualTo(new Message.Ok());
        assertThat(direct.position()).isEqualTo(2);
        ByteBuffer readOnly = ByteBuffer.wrap(payload).position(2).limit(15).asReadOnlyBuffer();
        assertThat(WireCodec.decodeJson(readOnly)).isEqualTo(new Message.Ok());
    }

    @Test
    void payloadLargerThanJacksonsDefaultStringLimitDecodes() throws Exception {
        // 16 MiB of payload is 22.4M base64 characters, above Jackson's default 20M-char string cap:
        // a broker configured with a larger frame cap must still accept it
        byte[] big = new byte[16 << 20];
        new java.util.Random(1).nextBytes(big);
        Publish p = new Publish("t1", "default", "demo", big);
        byte[] frame = WireCodec.encodeFrame(p);
        assertThat(frame.length).isGreaterThan(22_000_000);
        WirePayload back = WireCodec.decode(WireCodec.readFrame(ByteBuffer.wrap(frame), FrameHeader.MAX_SUPPORTED_FRAME_BYTES));
        assertThat(back).isEqualTo(p);
        // and the default 16 MiB frame cap refuses it from the header alone
        TestSupport.rejects(WireError.FRAME_TOO_LARGE,
            () -> WireCodec.readFrame(ByteBuffer.wrap(frame), FrameHeader.DEFAULT_MAX_FRAME_BYTES));
    }

    @Test
    void recordsCompareBytesByContentAndPrintLengthsOnly() {
        Publish a = new Publish("t", "n", "s", utf8("secret"));
        Publish b = new Publish("t", "n", "s", utf8("secret"));
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(new Publish("t", "n", "s", utf8("secreT")));
        assertThat(a.toString()).contains("byte[6]").doesNotContain("secret");
        PublishBatch pb = new PublishBatch("t", "n", "s", List.of(utf8("secret"), utf8("x")));
        assertThat(pb).isEqualTo(new PublishBatch("t", "n", "s", List.of(utf8("secret"), utf8("x"))));
        assertThat(pb.toString()).contains("2 payloads, 7 bytes").doesNotContain("secret");
        assertThat(new CacheValue("t", "n", "c", "k", null, null))
            .isEqualTo(new CacheValue("t", "n", "c", "k", null, null))
            .isNotEqualTo(new CacheValue("t", "n", "c", "k", new byte[0], null));
        assertThat(new Message.Auth("t", "my-jwt", null).toString()).doesNotContain("my-jwt");
        WatchChange change = new WatchChange(1, "k", "put", utf8("secret"), null);
        assertThat(change).isEqualTo(new WatchChange(1, "k", "put", utf8("secret"), null)).hasSameHashCodeAs(
            new WatchChange(1, "k", "put", utf8("secret"), null));
        assertThat(change.toString()).contains("byte[6]").doesNotContain("secret");
        CacheEntry entry = new CacheEntry("k", utf8("secret"), null);
        assertThat(entry).isEqualTo(new CacheEntry("k", utf8("secret"), null))
            .hasSameHashCodeAs(new CacheEntry("k", utf8("secret"), null))
            .isNotEqualTo(new CacheEntry("k", utf8("secreT"), null));
        assertThat(entry.toString()).contains("byte[6]").doesNotContain("secret");
        WatchSnapshot snap = new WatchSnapshot(1, List.of(entry, new CacheEntry("j", utf8("x"), 5L)), true);
        assertThat(snap).isEqualTo(new WatchSnapshot(1, List.of(new CacheEntry("k", utf8("secret"), null),
            new CacheEntry("j", utf8("x"), 5L)), true));
        assertThat(snap.toString()).contains("2 entries, 7 bytes").doesNotContain("secret");
    }

    @Test
    void constructorsRejectProgrammingErrors() {
        assertThatThrownBy(() -> new Publish("t", "n", "s", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new AuthOk(65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Message.Auth("t", "k", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Gap(1, null, 5, 4, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CacheInfo("t", "n", "c", null, null, 1, null, null, null, null))
            .isInstanceOf(NullPointerException.class).hasMessage("backing");
        assertThatThrownBy(() -> new WatchSnapshot(1, null, true)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new CacheEntry("k", null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new WatchChange(1, "k", null, null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new WatchEnded(1, null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new CacheDelete("t", "n", "c", null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WireCodec.encodeJson(new ErrorMessage("lone \uD800 surrogate")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("message");
    }

    @Test
    void everyTypeHasADistinctWireNameAndDirection() {
        assertThat(MessageType.values()).hasSize(45);
        for (MessageType t : MessageType.values()) {
            assertThat(MessageType.fromWireName(t.wireName())).isSameAs(t);
            assertThat(t.isExtension()).isEqualTo(t.ordinal() >= MessageType.GAP.ordinal());
        }
        assertThat(MessageType.fromWireName("nope")).isNull();
        assertThat(MessageType.PUBLISH.direction()).isEqualTo(Direction.CLIENT_TO_BROKER);
        assertThat(MessageType.GAP.direction()).isEqualTo(Direction.BROKER_TO_CLIENT);
        for (MessageType t : List.of(MessageType.CACHE_DELETE, MessageType.CACHE_CREATE, MessageType.CACHE_DESCRIBE,
            MessageType.CACHE_WATCH)) {
            assertThat(t.direction()).as(t.wireName()).isEqualTo(Direction.CLIENT_TO_BROKER);
        }
        for (MessageType t : List.of(MessageType.CACHE_INFO, MessageType.WATCH_SNAPSHOT, MessageType.WATCH_CHANGE,
            MessageType.WATCH_ENDED)) {
            assertThat(t.direction()).as(t.wireName()).isEqualTo(Direction.BROKER_TO_CLIENT);
        }
    }
}
