package dev.felix.wire;

import java.util.HashMap;
import java.util.Map;

/**
 * Every JSON message type: its {@code "type"} string, the direction it travels and the capability a
 * peer must have negotiated to receive it ({@code 0} for upstream types).
 */
public enum MessageType {
    /** {@link Message.Auth}. */
    AUTH("auth", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.AuthOk}. */
    AUTH_OK("auth_ok", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.Publish}. */
    PUBLISH("publish", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.PublishBatch}. */
    PUBLISH_BATCH("publish_batch", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.Subscribe}. */
    SUBSCRIBE("subscribe", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.Subscribed}. */
    SUBSCRIBED("subscribed", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.SubscribeCursorError}. */
    SUBSCRIBE_CURSOR_ERROR("subscribe_cursor_error", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.EventStreamHello}. */
    EVENT_STREAM_HELLO("event_stream_hello", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.Event}. */
    EVENT("event", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.EventBatch}. */
    EVENT_BATCH("event_batch", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.CachePut}. */
    CACHE_PUT("cache_put", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.CacheGet}. */
    CACHE_GET("cache_get", Direction.CLIENT_TO_BROKER, 0),
    /** {@link Message.CacheValue}. */
    CACHE_VALUE("cache_value", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.CacheOk}. */
    CACHE_OK("cache_ok", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.PublishOk}. */
    PUBLISH_OK("publish_ok", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.PublishError}. */
    PUBLISH_ERROR("publish_error", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.Ok}. */
    OK("ok", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.ErrorMessage}. */
    ERROR("error", Direction.BROKER_TO_CLIENT, 0),
    /** {@link Message.Gap} (extension). */
    GAP("gap", Direction.BROKER_TO_CLIENT, Capabilities.GAP_NOTICES),
    /** {@link Message.StreamCreate} (extension). */
    STREAM_CREATE("stream_create", Direction.CLIENT_TO_BROKER, Capabilities.ADMIN),
    /** {@link Message.StreamDescribe} (extension). */
    STREAM_DESCRIBE("stream_describe", Direction.CLIENT_TO_BROKER, Capabilities.ADMIN),
    /** {@link Message.StreamList} (extension). */
    STREAM_LIST("stream_list", Direction.CLIENT_TO_BROKER, Capabilities.ADMIN),
    /** {@link Message.StreamDelete} (extension). */
    STREAM_DELETE("stream_delete", Direction.CLIENT_TO_BROKER, Capabilities.ADMIN),
    /** {@link Message.StreamDeleted} (extension). */
    STREAM_DELETED("stream_deleted", Direction.BROKER_TO_CLIENT, Capabilities.ADMIN),
    /** {@link Message.StreamInfo} (extension). */
    STREAM_INFO("stream_info", Direction.BROKER_TO_CLIENT, Capabilities.ADMIN),
    /** {@link Message.StreamListResult} (extension). */
    STREAM_LIST_RESULT("stream_list_result", Direction.BROKER_TO_CLIENT, Capabilities.ADMIN),
    /** {@link Message.CacheDelete} (extension). */
    CACHE_DELETE("cache_delete", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.CacheCreate} (extension). */
    CACHE_CREATE("cache_create", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.CacheDescribe} (extension). */
    CACHE_DESCRIBE("cache_describe", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.CacheInfo} (extension). */
    CACHE_INFO("cache_info", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.CacheDrop} (extension). */
    CACHE_DROP("cache_drop", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.CacheDropped} (extension). */
    CACHE_DROPPED("cache_dropped", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.CacheList} (extension). */
    CACHE_LIST("cache_list", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.CacheListResult} (extension). */
    CACHE_LIST_RESULT("cache_list_result", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.CacheWatch} (extension). */
    CACHE_WATCH("cache_watch", Direction.CLIENT_TO_BROKER, Capabilities.CACHE_EXT),
    /** {@link Message.WatchSnapshot} (extension). */
    WATCH_SNAPSHOT("watch_snapshot", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.WatchChange} (extension). */
    WATCH_CHANGE("watch_change", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.WatchEnded} (extension). */
    WATCH_ENDED("watch_ended", Direction.BROKER_TO_CLIENT, Capabilities.CACHE_EXT),
    /** {@link Message.MuxSubscribe} (extension). */
    MUX_SUBSCRIBE("mux_subscribe", Direction.CLIENT_TO_BROKER, Capabilities.SUBSCRIPTION_MUX),
    /** {@link Message.MuxSubscribed} (extension). */
    MUX_SUBSCRIBED("mux_subscribed", Direction.BROKER_TO_CLIENT, Capabilities.SUBSCRIPTION_MUX),
    /** {@link Message.Credit} (extension). */
    CREDIT("credit", Direction.CLIENT_TO_BROKER, Capabilities.SUBSCRIPTION_MUX),
    /** {@link Message.Unsubscribe} (extension). */
    UNSUBSCRIBE("unsubscribe", Direction.CLIENT_TO_BROKER, Capabilities.SUBSCRIPTION_MUX),
    /** {@link Message.SubscriptionEnded} (extension). */
    SUBSCRIPTION_ENDED("subscription_ended", Direction.BROKER_TO_CLIENT, Capabilities.SUBSCRIPTION_MUX),
    /** {@link Message.ClusterStatus} (extension). */
    CLUSTER_STATUS("cluster_status", Direction.CLIENT_TO_BROKER, Capabilities.CLUSTER),
    /** {@link Message.ClusterStatusResult} (extension). */
    CLUSTER_STATUS_RESULT("cluster_status_result", Direction.BROKER_TO_CLIENT, Capabilities.CLUSTER);

    private static final Map<String, MessageType> BY_NAME = new HashMap<>();

    static {
        for (MessageType t : values()) {
            BY_NAME.put(t.wireName, t);
        }
    }

    private final String wireName;
    private final Direction direction;
    private final int requiredCapability;

    MessageType(String wireName, Direction direction, int requiredCapability) {
        this.wireName = wireName;
        this.direction = direction;
        this.requiredCapability = requiredCapability;
    }

    /** The value of the JSON {@code "type"} key. */
    public String wireName() {
        return wireName;
    }

    /** Who sends this message. Upstream answers a client that sends a broker-to-client type with an error. */
    public Direction direction() {
        return direction;
    }

    /** The extension bit a peer must have negotiated to receive this type; {@code 0} for upstream types. */
    public int requiredCapability() {
        return requiredCapability;
    }

    /** Whether this type is one of our extensions (unknown to upstream peers). */
    public boolean isExtension() {
        return requiredCapability != 0;
    }

    /** The type for a {@code "type"} string, or {@code null} if unknown. */
    public static MessageType fromWireName(String wireName) {
        return BY_NAME.get(wireName);
    }
}
