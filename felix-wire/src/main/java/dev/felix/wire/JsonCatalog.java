package dev.felix.wire;

import static dev.felix.wire.JsonSchema.Kind.ACK;
import static dev.felix.wire.JsonSchema.Kind.B64;
import static dev.felix.wire.JsonSchema.Kind.B64_LIST;
import static dev.felix.wire.JsonSchema.Kind.BOOL;
import static dev.felix.wire.JsonSchema.Kind.CURSOR_REASON;
import static dev.felix.wire.JsonSchema.Kind.QUEUE_POLICY;
import static dev.felix.wire.JsonSchema.Kind.START;
import static dev.felix.wire.JsonSchema.Kind.STR;
import static dev.felix.wire.JsonSchema.Kind.STR_LIST;
import static dev.felix.wire.JsonSchema.Kind.U16;
import static dev.felix.wire.JsonSchema.Kind.U32;
import static dev.felix.wire.JsonSchema.Kind.U32_LIST;
import static dev.felix.wire.JsonSchema.Kind.U64_LIST;
import static dev.felix.wire.JsonSchema.Kind.U64;
import static dev.felix.wire.JsonSchema.NULLABLE;
import static dev.felix.wire.JsonSchema.REQUIRED;
import static dev.felix.wire.JsonSchema.WRITE_NULL;
import static dev.felix.wire.JsonSchema.field;
import static dev.felix.wire.JsonSchema.object;
import static dev.felix.wire.JsonSchema.objects;
import static dev.felix.wire.JsonSchema.opt;
import static dev.felix.wire.JsonSchema.req;

import dev.felix.wire.JsonSchema.Field;
import dev.felix.wire.Message.AuthOk;
import dev.felix.wire.Message.CacheCreate;
import dev.felix.wire.Message.CacheDelete;
import dev.felix.wire.Message.CacheDescribe;
import dev.felix.wire.Message.CacheDrop;
import dev.felix.wire.Message.CacheDropped;
import dev.felix.wire.Message.CacheList;
import dev.felix.wire.Message.CacheListResult;
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
import dev.felix.wire.Message.Credit;
import dev.felix.wire.Message.Gap;
import dev.felix.wire.Message.MuxSubscribe;
import dev.felix.wire.Message.MuxSubscribed;
import dev.felix.wire.Message.SubscriptionEnded;
import dev.felix.wire.Message.Unsubscribe;
import dev.felix.wire.Message.Ok;
import dev.felix.wire.Message.Publish;
import dev.felix.wire.Message.PublishBatch;
import dev.felix.wire.Message.PublishError;
import dev.felix.wire.Message.PublishOk;
import dev.felix.wire.Message.StreamCreate;
import dev.felix.wire.Message.StreamDelete;
import dev.felix.wire.Message.StreamDeleted;
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
import java.util.Arrays;

/**
 * The key tables of every JSON message (wire.md §4.2 plus our extensions, see {@code docs/wire.md}).
 * The order of the fields in each table is the order of the keys on the wire, and slot {@code i} of a
 * factory's {@link JsonSchema.Values} is field {@code i}. Package-private.
 */
final class JsonCatalog {
    private JsonCatalog() {
    }

    static final JsonSchema<ShardInfo> SHARD_INFO = JsonSchema.<ShardInfo>of("shard_info",
        v -> new ShardInfo(v.u32(0), v.u64(1), v.u64(2), v.str(3), v.optU64(4), v.list(5), v.str(6)),
        req("shard", U32, ShardInfo::shard),
        req("base_offset", U64, ShardInfo::baseOffset),
        req("next_offset", U64, ShardInfo::nextOffset),
        opt("leader", STR, ShardInfo::leader),
        opt("epoch", U64, ShardInfo::epoch),
        opt("replicas", STR_LIST, ShardInfo::replicas),
        opt("status", STR, ShardInfo::status));

    static final JsonSchema<LeaderInfo> LEADER_INFO = JsonSchema.<LeaderInfo>of("leader",
        v -> new LeaderInfo(v.str(0), v.str(1), v.u64(2)),
        req("node", STR, LeaderInfo::node),
        req("addr", STR, LeaderInfo::addr),
        req("epoch", U64, LeaderInfo::epoch));

    static final JsonSchema<StreamDescription> STREAM_DESCRIPTION = JsonSchema.<StreamDescription>of("stream",
        v -> new StreamDescription(v.str(0), v.str(1), v.str(2), v.u32(3), v.bool(4), v.str(5), v.optU64(6),
            v.optU64(7), v.list(8), v.str(9), v.optInt(10), v.optBool(11)),
        req("tenant_id", STR, StreamDescription::tenantId),
        req("namespace", STR, StreamDescription::namespace),
        req("stream", STR, StreamDescription::stream),
        req("shards", U32, StreamDescription::shards),
        req("durable", BOOL, StreamDescription::durable),
        opt("fsync", STR, StreamDescription::fsync),
        opt("retention_bytes", U64, StreamDescription::retentionBytes),
        opt("retention_age_ms", U64, StreamDescription::retentionAgeMs),
        objects("shard_info", NULLABLE, SHARD_INFO, StreamDescription::shardInfo),
        opt("consistency", STR, StreamDescription::consistency),
        opt("replicas", U32, StreamDescription::replicas),
        opt("no_replay", BOOL, StreamDescription::noReplay));

    static final JsonSchema<ClusterNodeStatus> CLUSTER_NODE = JsonSchema.<ClusterNodeStatus>of("nodes",
        v -> new ClusterNodeStatus(v.str(0), v.str(1), v.str(2)),
        req("node", STR, ClusterNodeStatus::node),
        opt("addr", STR, ClusterNodeStatus::addr),
        req("status", STR, ClusterNodeStatus::status));

    static final JsonSchema<ReplicaLag> REPLICA_LAG = JsonSchema.<ReplicaLag>of("lag",
        v -> new ReplicaLag(v.str(0), v.u64(1)),
        req("node", STR, ReplicaLag::node),
        req("records", U64, ReplicaLag::records));

    static final JsonSchema<ClusterShardStatus> CLUSTER_SHARD = JsonSchema.<ClusterShardStatus>of("shards",
        v -> new ClusterShardStatus(v.str(0), v.str(1), v.u32(2), v.str(3), v.str(4), v.u64(5), v.list(6), v.str(7),
            v.optU64(8), v.optU64(9), v.list(10)),
        req("kind", STR, ClusterShardStatus::kind),
        req("name", STR, ClusterShardStatus::name),
        req("shard", U32, ClusterShardStatus::shard),
        req("consistency", STR, ClusterShardStatus::consistency),
        opt("leader", STR, ClusterShardStatus::leader),
        req("epoch", U64, ClusterShardStatus::epoch),
        field("replicas", STR_LIST, REQUIRED, ClusterShardStatus::replicas),
        req("status", STR, ClusterShardStatus::status),
        opt("hwm", U64, ClusterShardStatus::hwm),
        opt("log_end", U64, ClusterShardStatus::logEnd),
        objects("lag", NULLABLE, REPLICA_LAG, ClusterShardStatus::lag));

    static final JsonSchema<CacheEntry> CACHE_ENTRY = JsonSchema.<CacheEntry>of("entries",
        v -> new CacheEntry(v.str(0), v.bytes(1), v.optU64(2)),
        req("key", STR, CacheEntry::key),
        req("value", B64, CacheEntry::value),
        opt("expires_at_ms", U64, CacheEntry::expiresAtMs));

    static final JsonSchema<CacheDescription> CACHE_DESCRIPTION = JsonSchema.<CacheDescription>of("caches",
        v -> new CacheDescription(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4), v.u64(5), v.str(6),
            v.str(7)),
        req("tenant_id", STR, CacheDescription::tenantId),
        req("namespace", STR, CacheDescription::namespace),
        req("cache", STR, CacheDescription::cache),
        req("backing", STR, CacheDescription::backing),
        opt("ttl_ms", U64, CacheDescription::ttlMs),
        req("max_entries", U64, CacheDescription::maxEntries),
        opt("fsync", STR, CacheDescription::fsync),
        opt("consistency", STR, CacheDescription::consistency));

    private static final JsonSchema<?>[] BY_TYPE = new JsonSchema<?>[MessageType.values().length];

    private static void put(MessageType t, JsonSchema<?> s) {
        BY_TYPE[t.ordinal()] = s;
    }

    static {
        put(MessageType.AUTH, JsonSchema.<Message.Auth>of("auth",
            v -> new Message.Auth(v.str(0), v.str(1), v.optInt(2), v.optInt(3)),
            req("tenant_id", STR, Message.Auth::tenantId),
            req("token", STR, Message.Auth::token),
            opt("client_flags", U16, Message.Auth::clientFlags),
            opt("client_flags_ext", U16, Message.Auth::clientFlagsExt)));

        put(MessageType.AUTH_OK, JsonSchema.<AuthOk>of("auth_ok",
            v -> new AuthOk(v.u32(0), v.optInt(1)),
            req("server_flags", U16, AuthOk::serverFlags),
            opt("server_flags_ext", U16, AuthOk::serverFlagsExt)));

        put(MessageType.PUBLISH, JsonSchema.<Publish>of("publish",
            v -> new Publish(v.str(0), v.str(1), v.str(2), v.bytes(3), v.optU64(4), (AckMode) v.get(5),
                v.str(6), v.optInt(7)),
            req("tenant_id", STR, Publish::tenantId),
            req("namespace", STR, Publish::namespace),
            req("stream", STR, Publish::stream),
            req("payload", B64, Publish::payload),
            opt("request_id", U64, Publish::requestId),
            opt("ack", ACK, Publish::ack),
            opt("key", STR, Publish::key),
            opt("shard", U32, Publish::shard)));

        put(MessageType.PUBLISH_BATCH, JsonSchema.<PublishBatch>of("publish_batch",
            v -> new PublishBatch(v.str(0), v.str(1), v.str(2), v.list(3), v.optU64(4), (AckMode) v.get(5),
                v.str(6), v.optInt(7)),
            req("tenant_id", STR, PublishBatch::tenantId),
            req("namespace", STR, PublishBatch::namespace),
            req("stream", STR, PublishBatch::stream),
            req("payloads", B64_LIST, PublishBatch::payloads),
            opt("request_id", U64, PublishBatch::requestId),
            opt("ack", ACK, PublishBatch::ack),
            opt("key", STR, PublishBatch::key),
            opt("shard", U32, PublishBatch::shard)));

        put(MessageType.SUBSCRIBE, JsonSchema.<Subscribe>of("subscribe",
            v -> new Subscribe(v.str(0), v.str(1), v.str(2), v.optU64(3), (StartPosition) v.get(4), v.optInt(5),
                (QueuePolicy) v.get(6), v.optInt(7), v.optU64(8), v.optU64(9)),
            req("tenant_id", STR, Subscribe::tenantId),
            req("namespace", STR, Subscribe::namespace),
            req("stream", STR, Subscribe::stream),
            opt("subscription_id", U64, Subscribe::subscriptionId),
            opt("start", START, Subscribe::start),
            opt("shard", U32, Subscribe::shard),
            opt("queue_policy", QUEUE_POLICY, Subscribe::queuePolicy),
            opt("queue_events", U32, Subscribe::queueEvents),
            opt("queue_bytes", U64, Subscribe::queueBytes),
            opt("incarnation", U64, Subscribe::incarnation)));

        put(MessageType.SUBSCRIBED, JsonSchema.<Subscribed>of("subscribed",
            v -> new Subscribed(v.u64(0), v.list(1)),
            req("subscription_id", U64, Subscribed::subscriptionId),
            opt("shards", U32_LIST, Subscribed::shards)));

        put(MessageType.SUBSCRIBE_CURSOR_ERROR, JsonSchema.<SubscribeCursorError>of("subscribe_cursor_error",
            v -> new SubscribeCursorError((CursorErrorReason) v.get(0), v.u64(1), v.u64(2)),
            req("reason", CURSOR_REASON, SubscribeCursorError::reason),
            req("requested", U64, SubscribeCursorError::requested),
            req("available", U64, SubscribeCursorError::available)));

        put(MessageType.EVENT_STREAM_HELLO, JsonSchema.<EventStreamHello>of("event_stream_hello",
            v -> new EventStreamHello(v.u64(0), v.optInt(1), v.optU64(2)),
            req("subscription_id", U64, EventStreamHello::subscriptionId),
            opt("shard", U32, EventStreamHello::shard),
            opt("incarnation", U64, EventStreamHello::incarnation)));

        put(MessageType.EVENT, JsonSchema.<Event>of("event",
            v -> new Event(v.str(0), v.str(1), v.str(2), v.bytes(3), v.optU64(4)),
            req("tenant_id", STR, Event::tenantId),
            req("namespace", STR, Event::namespace),
            req("stream", STR, Event::stream),
            req("payload", B64, Event::payload),
            opt("offset", U64, Event::offset)));

        put(MessageType.EVENT_BATCH, JsonSchema.<EventBatch>of("event_batch",
            v -> new EventBatch(v.str(0), v.str(1), v.str(2), v.list(3), v.optU64(4)),
            req("tenant_id", STR, EventBatch::tenantId),
            req("namespace", STR, EventBatch::namespace),
            req("stream", STR, EventBatch::stream),
            req("payloads", B64_LIST, EventBatch::payloads),
            opt("base_offset", U64, EventBatch::baseOffset)));

        put(MessageType.CACHE_PUT, JsonSchema.<CachePut>of("cache_put",
            v -> new CachePut(v.str(0), v.str(1), v.str(2), v.str(3), v.bytes(4), v.optU64(5), v.optU64(6)),
            req("tenant_id", STR, CachePut::tenantId),
            req("namespace", STR, CachePut::namespace),
            req("cache", STR, CachePut::cache),
            req("key", STR, CachePut::key),
            req("value", B64, CachePut::value),
            opt("request_id", U64, CachePut::requestId),
            // always written (null = no expiry) but may be left out on input
            field("ttl_ms", U64, NULLABLE | WRITE_NULL, CachePut::ttlMs)));

        put(MessageType.CACHE_GET, JsonSchema.<CacheGet>of("cache_get",
            v -> new CacheGet(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4)),
            req("tenant_id", STR, CacheGet::tenantId),
            req("namespace", STR, CacheGet::namespace),
            req("cache", STR, CacheGet::cache),
            req("key", STR, CacheGet::key),
            opt("request_id", U64, CacheGet::requestId)));

        put(MessageType.CACHE_VALUE, JsonSchema.<CacheValue>of("cache_value",
            v -> new CacheValue(v.str(0), v.str(1), v.str(2), v.str(3), v.bytes(4), v.optU64(5)),
            req("tenant_id", STR, CacheValue::tenantId),
            req("namespace", STR, CacheValue::namespace),
            req("cache", STR, CacheValue::cache),
            req("key", STR, CacheValue::key),
            // the key must be present (custom base64 adapter upstream), null = miss
            field("value", B64, REQUIRED | NULLABLE | WRITE_NULL, CacheValue::value),
            opt("request_id", U64, CacheValue::requestId)));

        put(MessageType.CACHE_OK, JsonSchema.<CacheOk>of("cache_ok",
            v -> new CacheOk(v.u64(0), v.optU64(1)),
            req("request_id", U64, CacheOk::requestId),
            opt("offset", U64, CacheOk::offset)));

        put(MessageType.PUBLISH_OK, JsonSchema.<PublishOk>of("publish_ok",
            v -> new PublishOk(v.u64(0), v.optU64(1), v.optInt(2), v.optInt(3)),
            req("request_id", U64, PublishOk::requestId),
            opt("offset", U64, PublishOk::offset),
            opt("count", U32, PublishOk::count),
            opt("shard", U32, PublishOk::shard)));

        put(MessageType.PUBLISH_ERROR, JsonSchema.<PublishError>of("publish_error",
            v -> new PublishError(v.u64(0), v.str(1), v.str(2), (LeaderInfo) v.get(3)),
            req("request_id", U64, PublishError::requestId),
            req("message", STR, PublishError::message),
            opt("code", STR, PublishError::code),
            object("leader", NULLABLE, LEADER_INFO, PublishError::leader)));

        put(MessageType.OK, JsonSchema.<Ok>of("ok", v -> new Ok()));

        put(MessageType.ERROR, JsonSchema.<ErrorMessage>of("error",
            v -> new ErrorMessage(v.str(0), v.str(1), v.optU64(2), v.optU64(3), (LeaderInfo) v.get(4)),
            req("message", STR, ErrorMessage::message),
            opt("code", STR, ErrorMessage::code),
            opt("request_id", U64, ErrorMessage::requestId),
            opt("offset", U64, ErrorMessage::offset),
            object("leader", NULLABLE, LEADER_INFO, ErrorMessage::leader)));

        put(MessageType.GAP, JsonSchema.<Gap>of("gap",
            v -> {
                long from = v.u64(2);
                long to = v.u64(3);
                if (Long.compareUnsigned(from, to) > 0) {
                    throw new WireException(WireError.BAD_FIELD, "to: " + Long.toUnsignedString(to)
                        + " is below from " + Long.toUnsignedString(from) + " (the range is inclusive)");
                }
                return new Gap(v.u64(0), v.optInt(1), from, to, v.str(4));
            },
            req("subscription_id", U64, Gap::subscriptionId),
            opt("shard", U32, Gap::shard),
            req("from", U64, Gap::from),
            req("to", U64, Gap::to),
            req("reason", STR, Gap::reason)));

        put(MessageType.STREAM_CREATE, JsonSchema.<StreamCreate>of("stream_create",
            v -> new StreamCreate(v.str(0), v.str(1), v.str(2), v.optInt(3), v.optBool(4), v.str(5), v.optU64(6),
                v.optU64(7), v.optU64(8), v.str(9), v.optInt(10), v.optBool(11)),
            req("tenant_id", STR, StreamCreate::tenantId),
            req("namespace", STR, StreamCreate::namespace),
            req("stream", STR, StreamCreate::stream),
            opt("shards", U32, StreamCreate::shards),
            opt("durable", BOOL, StreamCreate::durable),
            opt("fsync", STR, StreamCreate::fsync),
            opt("retention_bytes", U64, StreamCreate::retentionBytes),
            opt("retention_age_ms", U64, StreamCreate::retentionAgeMs),
            opt("request_id", U64, StreamCreate::requestId),
            opt("consistency", STR, StreamCreate::consistency),
            opt("replicas", U32, StreamCreate::replicas),
            opt("no_replay", BOOL, StreamCreate::noReplay)));

        put(MessageType.STREAM_DESCRIBE, JsonSchema.<StreamDescribe>of("stream_describe",
            v -> new StreamDescribe(v.str(0), v.str(1), v.str(2), v.optU64(3)),
            req("tenant_id", STR, StreamDescribe::tenantId),
            req("namespace", STR, StreamDescribe::namespace),
            req("stream", STR, StreamDescribe::stream),
            opt("request_id", U64, StreamDescribe::requestId)));

        put(MessageType.STREAM_LIST, JsonSchema.<StreamList>of("stream_list",
            v -> new StreamList(v.str(0), v.str(1), v.optU64(2)),
            req("tenant_id", STR, StreamList::tenantId),
            opt("namespace", STR, StreamList::namespace),
            opt("request_id", U64, StreamList::requestId)));

        put(MessageType.STREAM_DELETE, JsonSchema.<StreamDelete>of("stream_delete",
            v -> new StreamDelete(v.str(0), v.str(1), v.str(2), v.optBool(3), v.optU64(4)),
            req("tenant_id", STR, StreamDelete::tenantId),
            req("namespace", STR, StreamDelete::namespace),
            req("stream", STR, StreamDelete::stream),
            opt("force", BOOL, StreamDelete::force),
            opt("request_id", U64, StreamDelete::requestId)));

        put(MessageType.STREAM_DELETED, JsonSchema.<StreamDeleted>of("stream_deleted",
            v -> new StreamDeleted(v.str(0), v.str(1), v.str(2), v.optU64(3)),
            req("tenant_id", STR, StreamDeleted::tenantId),
            req("namespace", STR, StreamDeleted::namespace),
            req("stream", STR, StreamDeleted::stream),
            opt("request_id", U64, StreamDeleted::requestId)));

        // stream_info: the StreamDescription keys, flattened, then request_id
        Field<StreamDescription>[] desc = STREAM_DESCRIPTION.fields;
        @SuppressWarnings("unchecked")
        Field<StreamInfo>[] info = (Field<StreamInfo>[]) new Field<?>[desc.length + 1];
        for (int i = 0; i < desc.length; i++) {
            info[i] = desc[i].through(StreamInfo::stream);
        }
        info[desc.length] = opt("request_id", U64, StreamInfo::requestId);
        int requestSlot = desc.length;
        put(MessageType.STREAM_INFO, JsonSchema.<StreamInfo>of("stream_info",
            v -> new StreamInfo(STREAM_DESCRIPTION.factory.create(v), v.optU64(requestSlot)),
            info));

        put(MessageType.STREAM_LIST_RESULT, JsonSchema.<StreamListResult>of("stream_list_result",
            v -> new StreamListResult(v.list(0), v.optU64(1)),
            objects("streams", REQUIRED, STREAM_DESCRIPTION, StreamListResult::streams),
            opt("request_id", U64, StreamListResult::requestId)));

        // cache extensions (CACHE_EXT). backing, fsync, op and reason are plain strings: a newer value
        // must not break an older peer, so the broker and the SDK check them, not the codec.
        put(MessageType.CACHE_DELETE, JsonSchema.<CacheDelete>of("cache_delete",
            v -> new CacheDelete(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4)),
            req("tenant_id", STR, CacheDelete::tenantId),
            req("namespace", STR, CacheDelete::namespace),
            req("cache", STR, CacheDelete::cache),
            req("key", STR, CacheDelete::key),
            opt("request_id", U64, CacheDelete::requestId)));

        put(MessageType.CACHE_CREATE, JsonSchema.<CacheCreate>of("cache_create",
            v -> new CacheCreate(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4), v.optU64(5), v.str(6),
                v.optU64(7), v.str(8)),
            req("tenant_id", STR, CacheCreate::tenantId),
            req("namespace", STR, CacheCreate::namespace),
            req("cache", STR, CacheCreate::cache),
            opt("backing", STR, CacheCreate::backing),
            opt("ttl_ms", U64, CacheCreate::ttlMs),
            opt("max_entries", U64, CacheCreate::maxEntries),
            opt("fsync", STR, CacheCreate::fsync),
            opt("request_id", U64, CacheCreate::requestId),
            opt("consistency", STR, CacheCreate::consistency)));

        put(MessageType.CACHE_DESCRIBE, JsonSchema.<CacheDescribe>of("cache_describe",
            v -> new CacheDescribe(v.str(0), v.str(1), v.str(2), v.optU64(3)),
            req("tenant_id", STR, CacheDescribe::tenantId),
            req("namespace", STR, CacheDescribe::namespace),
            req("cache", STR, CacheDescribe::cache),
            opt("request_id", U64, CacheDescribe::requestId)));

        put(MessageType.CACHE_INFO, JsonSchema.<CacheInfo>of("cache_info",
            v -> new CacheInfo(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4), v.u64(5), v.str(6),
                v.optU64(7), v.optU64(8), v.optU64(9), v.str(10)),
            req("tenant_id", STR, CacheInfo::tenantId),
            req("namespace", STR, CacheInfo::namespace),
            req("cache", STR, CacheInfo::cache),
            req("backing", STR, CacheInfo::backing),
            opt("ttl_ms", U64, CacheInfo::ttlMs),
            req("max_entries", U64, CacheInfo::maxEntries),
            opt("fsync", STR, CacheInfo::fsync),
            opt("entries", U64, CacheInfo::entries),
            opt("next_offset", U64, CacheInfo::nextOffset),
            opt("request_id", U64, CacheInfo::requestId),
            opt("consistency", STR, CacheInfo::consistency)));

        put(MessageType.CACHE_DROP, JsonSchema.<CacheDrop>of("cache_drop",
            v -> new CacheDrop(v.str(0), v.str(1), v.str(2), v.optBool(3), v.optU64(4)),
            req("tenant_id", STR, CacheDrop::tenantId),
            req("namespace", STR, CacheDrop::namespace),
            req("cache", STR, CacheDrop::cache),
            opt("force", BOOL, CacheDrop::force),
            opt("request_id", U64, CacheDrop::requestId)));

        put(MessageType.CACHE_DROPPED, JsonSchema.<CacheDropped>of("cache_dropped",
            v -> new CacheDropped(v.str(0), v.str(1), v.str(2), v.optU64(3)),
            req("tenant_id", STR, CacheDropped::tenantId),
            req("namespace", STR, CacheDropped::namespace),
            req("cache", STR, CacheDropped::cache),
            opt("request_id", U64, CacheDropped::requestId)));

        put(MessageType.CACHE_LIST, JsonSchema.<CacheList>of("cache_list",
            v -> new CacheList(v.str(0), v.str(1), v.optU64(2)),
            req("tenant_id", STR, CacheList::tenantId),
            opt("namespace", STR, CacheList::namespace),
            opt("request_id", U64, CacheList::requestId)));

        put(MessageType.CACHE_LIST_RESULT, JsonSchema.<CacheListResult>of("cache_list_result",
            v -> new CacheListResult(v.list(0), v.optU64(1)),
            objects("caches", REQUIRED, CACHE_DESCRIPTION, CacheListResult::caches),
            opt("request_id", U64, CacheListResult::requestId)));

        put(MessageType.CLUSTER_STATUS, JsonSchema.<Message.ClusterStatus>of("cluster_status",
            v -> new Message.ClusterStatus(v.optU64(0)),
            opt("request_id", U64, Message.ClusterStatus::requestId)));

        put(MessageType.CLUSTER_STATUS_RESULT, JsonSchema.<Message.ClusterStatusResult>of("cluster_status_result",
            v -> new Message.ClusterStatusResult(v.str(0), v.list(1), v.list(2), v.optU64(3)),
            req("node", STR, Message.ClusterStatusResult::node),
            objects("nodes", REQUIRED, CLUSTER_NODE, Message.ClusterStatusResult::nodes),
            objects("shards", REQUIRED, CLUSTER_SHARD, Message.ClusterStatusResult::shards),
            opt("request_id", U64, Message.ClusterStatusResult::requestId)));

        put(MessageType.CACHE_WATCH, JsonSchema.<CacheWatch>of("cache_watch",
            v -> new CacheWatch(v.str(0), v.str(1), v.str(2), v.str(3), v.optU64(4), v.optInt(5), v.optU64(6)),
            req("tenant_id", STR, CacheWatch::tenantId),
            req("namespace", STR, CacheWatch::namespace),
            req("cache", STR, CacheWatch::cache),
            opt("prefix", STR, CacheWatch::prefix),
            opt("from_offset", U64, CacheWatch::fromOffset),
            opt("queue_events", U32, CacheWatch::queueEvents),
            opt("request_id", U64, CacheWatch::requestId)));

        put(MessageType.WATCH_SNAPSHOT, JsonSchema.<WatchSnapshot>of("watch_snapshot",
            v -> new WatchSnapshot(v.u64(0), v.list(1), v.bool(2)),
            req("offset", U64, WatchSnapshot::offset),
            objects("entries", REQUIRED, CACHE_ENTRY, WatchSnapshot::entries),
            req("last", BOOL, WatchSnapshot::last)));

        put(MessageType.WATCH_CHANGE, JsonSchema.<WatchChange>of("watch_change",
            v -> new WatchChange(v.u64(0), v.str(1), v.str(2), v.bytes(3), v.optU64(4)),
            req("offset", U64, WatchChange::offset),
            req("key", STR, WatchChange::key),
            req("op", STR, WatchChange::op),
            opt("value", B64, WatchChange::value),
            opt("expires_at_ms", U64, WatchChange::expiresAtMs)));

        put(MessageType.WATCH_ENDED, JsonSchema.<WatchEnded>of("watch_ended",
            v -> new WatchEnded(v.u64(0), v.str(1), v.str(2)),
            req("resume_from", U64, WatchEnded::resumeFrom),
            req("reason", STR, WatchEnded::reason),
            opt("message", STR, WatchEnded::message)));

        put(MessageType.MUX_SUBSCRIBE, JsonSchema.<MuxSubscribe>of("mux_subscribe",
            v -> new MuxSubscribe(v.u64(0), v.str(1), v.str(2), v.str(3), (StartPosition) v.get(4), v.optInt(5),
                (QueuePolicy) v.get(6), v.optInt(7), v.optU64(8), v.optU64(9), v.u32(10)),
            req("request_id", U64, MuxSubscribe::requestId),
            req("tenant_id", STR, MuxSubscribe::tenantId),
            req("namespace", STR, MuxSubscribe::namespace),
            req("stream", STR, MuxSubscribe::stream),
            opt("start", START, MuxSubscribe::start),
            opt("shard", U32, MuxSubscribe::shard),
            opt("queue_policy", QUEUE_POLICY, MuxSubscribe::queuePolicy),
            opt("queue_events", U32, MuxSubscribe::queueEvents),
            opt("queue_bytes", U64, MuxSubscribe::queueBytes),
            opt("incarnation", U64, MuxSubscribe::incarnation),
            req("credit", U32, MuxSubscribe::credit)));

        put(MessageType.MUX_SUBSCRIBED, JsonSchema.<MuxSubscribed>of("mux_subscribed",
            v -> new MuxSubscribed(v.u64(0), v.u64(1), v.list(2), v.list(3), v.list(4)),
            req("request_id", U64, MuxSubscribed::requestId),
            req("subscription_id", U64, MuxSubscribed::subscriptionId),
            req("shards", U32_LIST, MuxSubscribed::shards),
            req("channels", U32_LIST, MuxSubscribed::channels),
            opt("incarnations", U64_LIST, MuxSubscribed::incarnations)));

        put(MessageType.CREDIT, JsonSchema.<Credit>of("credit",
            v -> new Credit(v.u32(0), v.u32(1)),
            req("channel", U32, Credit::channel),
            req("events", U32, Credit::events)));

        put(MessageType.UNSUBSCRIBE, JsonSchema.<Unsubscribe>of("unsubscribe",
            v -> new Unsubscribe(v.u64(0)),
            req("subscription_id", U64, Unsubscribe::subscriptionId)));

        put(MessageType.SUBSCRIPTION_ENDED, JsonSchema.<SubscriptionEnded>of("subscription_ended",
            v -> new SubscriptionEnded(v.u32(0), v.str(1), v.str(2)),
            req("channel", U32, SubscriptionEnded::channel),
            req("code", STR, SubscriptionEnded::code),
            req("message", STR, SubscriptionEnded::message)));

        for (MessageType t : MessageType.values()) {
            if (BY_TYPE[t.ordinal()] == null) {
                throw new ExceptionInInitializerError("no JSON schema for " + t);
            }
        }
    }

    /** The schema of {@code type}. */
    @SuppressWarnings("unchecked")
    static JsonSchema<Message> schema(MessageType type) {
        return (JsonSchema<Message>) BY_TYPE[type.ordinal()];
    }

    /** For diagnostics: the wire keys of {@code type} in order. */
    static String[] keys(MessageType type) {
        return Arrays.stream(schema(type).fields).map(f -> f.name).toArray(String[]::new);
    }
}
