package dev.felix.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A JSON message: the payload of a frame whose flags are {@code 0}. One record per {@code type}.
 *
 * <h2>Encoding (what {@link WireCodec#encodeJson} produces)</h2>
 * Compact JSON, {@code "type"} first, then the record's fields in declaration order (which is the
 * wire order of the upstream spec, extension fields appended last). Optional fields ({@code null}
 * components) are omitted, except {@link CachePut#ttlMs()} and {@link CacheValue#value()}, which are
 * always written ({@code null} when absent). {@code byte[]} fields are standard base64 with padding.
 *
 * <h2>Integer conventions</h2>
 * The wire integers are unsigned. A {@code u64} is held in a {@code long} and a {@code u32} in an
 * {@code int}, both with <em>unsigned semantics</em>: {@code -1L} is {@code 2^64-1}. Compare with
 * {@link Long#compareUnsigned}, print with {@link Long#toUnsignedString}. A {@code u16} is held in an
 * {@code int} and must be in {@code 0..65535}. Optional integers are boxed and {@code null} when absent.
 *
 * <h2>Ownership</h2>
 * Records take the {@code byte[]} they are given without copying (publish is a hot path); do not
 * mutate an array after handing it over. Lists are copied into immutable lists. Decoded records own
 * freshly allocated arrays. Records holding {@code byte[]} compare contents in {@code equals} and
 * print lengths, never contents, in {@code toString}.
 *
 * <p>Constructors reject {@code null} required fields ({@link NullPointerException}) and values out
 * of range ({@link IllegalArgumentException}); the decoder checks the same conditions first and
 * reports them as {@link WireException}. Records are immutable and thread-safe.
 */
public sealed interface Message extends WirePayload {

    /** The message type, i.e. the JSON {@code "type"} value. */
    MessageType type();

    /** Always {@code 0}: JSON messages travel in frames without flags. */
    @Override
    default int frameFlags() {
        return 0;
    }

    private static int u16(int v, String name) {
        if ((v & ~0xFFFF) != 0) {
            throw new IllegalArgumentException(name + " must be a u16 (0..65535): " + v);
        }
        return v;
    }

    // ---------------------------------------------------------------- upstream types

    /**
     * {@code auth} (C to B): first frame on every client-opened stream.
     * Keys: {@code tenant_id, token, client_flags?}. {@code client_flags} present: the broker replies
     * {@code auth_ok}; absent: plain {@code ok} (legacy client, {@link FrameFlags#ORIGINAL_V1} assumed).
     *
     * @param tenantId    tenant
     * @param token       bearer token (JWT)
     * @param clientFlags u16 {@linkplain Capabilities capability word}, or null for a legacy client
     */
    record Auth(String tenantId, String token, Integer clientFlags, Integer clientFlagsExt) implements Message {
        public Auth {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(token, "token");
            if (clientFlags != null) {
                u16(clientFlags, "client_flags");
            }
            if (clientFlagsExt != null) {
                u16(clientFlagsExt, "client_flags_ext");
            }
        }

        /** Without the second capability word (what every client before it sent). */
        public Auth(String tenantId, String token, Integer clientFlags) {
            this(tenantId, token, clientFlags, null);
        }

        /**
         * The client's whole capability set ({@link Capabilities#combine}): {@code client_flags} (or
         * {@link FrameFlags#ORIGINAL_V1} when absent) and {@code client_flags_ext}.
         */
        public int capabilities() {
            return Capabilities.combine(clientFlags != null ? clientFlags : FrameFlags.ORIGINAL_V1,
                clientFlagsExt != null ? clientFlagsExt : 0);
        }

        @Override
        public MessageType type() {
            return MessageType.AUTH;
        }

        @Override
        public String toString() {
            return "Auth[tenantId=" + tenantId + ", token=<" + token.length() + " chars>, clientFlags="
                + (clientFlags == null ? "null" : Capabilities.describe(clientFlags))
                + (clientFlagsExt == null ? "" : ", clientFlagsExt=" + String.format("0x%04X", clientFlagsExt)) + "]";
        }
    }

    /**
     * {@code auth_ok} (B to C): reply to an {@code auth} that carried {@code client_flags}. Keys:
     * {@code server_flags}, {@code server_flags_ext?} (only in reply to an {@code auth} that carried
     * {@code client_flags_ext}).
     *
     * @param serverFlags    u16 capability word the broker supports
     * @param serverFlagsExt u16 second capability word ({@link Capabilities#EXT_ALL}), or null
     */
    record AuthOk(int serverFlags, Integer serverFlagsExt) implements Message {
        public AuthOk {
            u16(serverFlags, "server_flags");
            if (serverFlagsExt != null) {
                u16(serverFlagsExt, "server_flags_ext");
            }
        }

        /** Without the second capability word (what every broker before it sent). */
        public AuthOk(int serverFlags) {
            this(serverFlags, null);
        }

        /** The broker's whole capability set ({@link Capabilities#combine}). */
        public int capabilities() {
            return Capabilities.combine(serverFlags, serverFlagsExt != null ? serverFlagsExt : 0);
        }

        @Override
        public MessageType type() {
            return MessageType.AUTH_OK;
        }
    }

    /**
     * {@code publish} (C to B). Keys: {@code tenant_id, namespace, stream, payload, request_id?, ack?,
     * key?, shard?}. {@code key} and {@code shard} are extensions ({@link Capabilities#SHARDS}).
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param payload   the event bytes (base64 on the wire); required
     * @param requestId u64 request id, required by the broker when acked
     * @param ack       ack mode; absent means acked (upstream quirk)
     * @param key       shard key: the broker picks the shard by its hash (extension)
     * @param shard     u32 explicit shard (extension)
     */
    record Publish(String tenantId, String namespace, String stream, byte[] payload, Long requestId,
                   AckMode ack, String key, Integer shard) implements Message {
        public Publish {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(payload, "payload");
        }

        /** An upstream publish with no request id, ack mode or shard fields. */
        public Publish(String tenantId, String namespace, String stream, byte[] payload) {
            this(tenantId, namespace, stream, payload, null, null, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.PUBLISH;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Publish p && tenantId.equals(p.tenantId) && namespace.equals(p.namespace)
                && stream.equals(p.stream) && Arrays.equals(payload, p.payload)
                && Objects.equals(requestId, p.requestId) && ack == p.ack && Objects.equals(key, p.key)
                && Objects.equals(shard, p.shard);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, stream, Arrays.hashCode(payload), requestId, ack, key, shard);
        }

        @Override
        public String toString() {
            return "Publish[tenantId=" + tenantId + ", namespace=" + namespace + ", stream=" + stream
                + ", payload=" + Bytes.describe(payload) + ", requestId=" + Bytes.u64(requestId) + ", ack=" + ack
                + ", key=" + key + ", shard=" + Bytes.u32(shard) + "]";
        }
    }

    /**
     * {@code publish_batch} (C to B). Keys: {@code tenant_id, namespace, stream, payloads, request_id?,
     * ack?, key?, shard?}. One ack per frame whatever the mode.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param payloads  the event bytes, in order (may be empty); required; copied into an immutable list
     * @param requestId u64 request id
     * @param ack       ack mode; absent means acked (upstream quirk)
     * @param key       shard key (extension)
     * @param shard     u32 explicit shard (extension)
     */
    record PublishBatch(String tenantId, String namespace, String stream, List<byte[]> payloads,
                        Long requestId, AckMode ack, String key, Integer shard) implements Message {
        public PublishBatch {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
            payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
        }

        /** An upstream batch with no request id, ack mode or shard fields. */
        public PublishBatch(String tenantId, String namespace, String stream, List<byte[]> payloads) {
            this(tenantId, namespace, stream, payloads, null, null, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.PUBLISH_BATCH;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PublishBatch p && tenantId.equals(p.tenantId) && namespace.equals(p.namespace)
                && stream.equals(p.stream) && Bytes.listEquals(payloads, p.payloads)
                && Objects.equals(requestId, p.requestId) && ack == p.ack && Objects.equals(key, p.key)
                && Objects.equals(shard, p.shard);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, stream, Bytes.listHash(payloads), requestId, ack, key, shard);
        }

        @Override
        public String toString() {
            return "PublishBatch[tenantId=" + tenantId + ", namespace=" + namespace + ", stream=" + stream
                + ", payloads=" + Bytes.describe(payloads) + ", requestId=" + Bytes.u64(requestId) + ", ack=" + ack
                + ", key=" + key + ", shard=" + Bytes.u32(shard) + "]";
        }
    }

    /**
     * {@code subscribe} (C to B). Keys: {@code tenant_id, namespace, stream, subscription_id?, start?,
     * shard?, queue_policy?, queue_events?, queue_bytes?, incarnation?}. The last five are extensions
     * ({@code shard}: {@link Capabilities#SHARDS}; queue fields and {@code incarnation}:
     * {@link Capabilities#GAP_NOTICES}).
     *
     * @param tenantId       tenant
     * @param namespace      namespace
     * @param stream         stream
     * @param subscriptionId u64 client-chosen id (the broker assigns one when absent)
     * @param start          start position; absent = latest via the older tail-only path
     * @param shard          u32 shard to subscribe to; absent = all shards (extension)
     * @param queuePolicy    subscriber queue overflow policy (extension)
     * @param queueEvents    u32 subscriber queue bound in events (extension)
     * @param queueBytes     u64 subscriber queue bound in bytes (extension)
     * @param incarnation    u64 incarnation of the ephemeral shard the resume offset ({@code start.offset})
     *                       belongs to, as read from {@link EventStreamHello#incarnation()} (extension)
     */
    record Subscribe(String tenantId, String namespace, String stream, Long subscriptionId,
                     StartPosition start, Integer shard, QueuePolicy queuePolicy, Integer queueEvents,
                     Long queueBytes, Long incarnation) implements Message {
        public Subscribe {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        /** A subscribe without {@code incarnation}. */
        public Subscribe(String tenantId, String namespace, String stream, Long subscriptionId,
                         StartPosition start, Integer shard, QueuePolicy queuePolicy, Integer queueEvents,
                         Long queueBytes) {
            this(tenantId, namespace, stream, subscriptionId, start, shard, queuePolicy, queueEvents, queueBytes, null);
        }

        /** An upstream subscribe with an optional start position. */
        public Subscribe(String tenantId, String namespace, String stream, StartPosition start) {
            this(tenantId, namespace, stream, null, start, null, null, null, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.SUBSCRIBE;
        }
    }

    /**
     * {@code subscribed} (B to C): success reply to {@code subscribe}. Keys: {@code subscription_id, shards?}.
     *
     * @param subscriptionId u64
     * @param shards         u32 shards the subscription covers (extension); copied
     */
    record Subscribed(long subscriptionId, List<Integer> shards) implements Message {
        public Subscribed {
            shards = shards == null ? null : List.copyOf(shards);
        }

        /** The upstream form. */
        public Subscribed(long subscriptionId) {
            this(subscriptionId, null);
        }

        @Override
        public MessageType type() {
            return MessageType.SUBSCRIBED;
        }
    }

    /**
     * {@code subscribe_cursor_error} (B to C): a {@code start} that cannot be served.
     * Keys: {@code reason, requested, available}.
     *
     * @param reason    too_old or in_future
     * @param requested u64 the offset asked for
     * @param available u64 the oldest retained offset (too_old) or the tail (in_future)
     */
    record SubscribeCursorError(CursorErrorReason reason, long requested, long available) implements Message {
        public SubscribeCursorError {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public MessageType type() {
            return MessageType.SUBSCRIBE_CURSOR_ERROR;
        }
    }

    /**
     * {@code event_stream_hello} (B to C): first frame of every event uni stream; binds it to a
     * subscription. Keys: {@code subscription_id, shard?, incarnation?} ({@code shard}:
     * {@link Capabilities#SHARDS}; {@code incarnation}: {@link Capabilities#GAP_NOTICES}).
     *
     * @param subscriptionId u64
     * @param shard          u32 the shard whose events this stream carries (extension)
     * @param incarnation    u64 incarnation of the shard this stream reads: an ephemeral shard gets a
     *                       new one whenever it is recreated and its offsets start over (extension)
     */
    record EventStreamHello(long subscriptionId, Integer shard, Long incarnation) implements Message {
        /** A hello without {@code incarnation}. */
        public EventStreamHello(long subscriptionId, Integer shard) {
            this(subscriptionId, shard, null);
        }

        /** The upstream form. */
        public EventStreamHello(long subscriptionId) {
            this(subscriptionId, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.EVENT_STREAM_HELLO;
        }
    }

    /**
     * {@code event} (B to C, legacy: decoded by clients, never sent by the upstream broker).
     * Keys: {@code tenant_id, namespace, stream, payload, offset?}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param payload   event bytes
     * @param offset    u64 offset
     */
    record Event(String tenantId, String namespace, String stream, byte[] payload, Long offset)
        implements Message {
        public Event {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(payload, "payload");
        }

        @Override
        public MessageType type() {
            return MessageType.EVENT;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Event e && tenantId.equals(e.tenantId) && namespace.equals(e.namespace)
                && stream.equals(e.stream) && Arrays.equals(payload, e.payload) && Objects.equals(offset, e.offset);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, stream, Arrays.hashCode(payload), offset);
        }

        @Override
        public String toString() {
            return "Event[tenantId=" + tenantId + ", namespace=" + namespace + ", stream=" + stream
                + ", payload=" + Bytes.describe(payload) + ", offset=" + Bytes.u64(offset) + "]";
        }
    }

    /**
     * {@code event_batch} (B to C, legacy). Keys: {@code tenant_id, namespace, stream, payloads, base_offset?}.
     *
     * @param tenantId   tenant
     * @param namespace  namespace
     * @param stream     stream
     * @param payloads   event bytes; copied into an immutable list
     * @param baseOffset u64 offset of the first payload
     */
    record EventBatch(String tenantId, String namespace, String stream, List<byte[]> payloads,
                      Long baseOffset) implements Message {
        public EventBatch {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
            payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
        }

        @Override
        public MessageType type() {
            return MessageType.EVENT_BATCH;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof EventBatch e && tenantId.equals(e.tenantId) && namespace.equals(e.namespace)
                && stream.equals(e.stream) && Bytes.listEquals(payloads, e.payloads)
                && Objects.equals(baseOffset, e.baseOffset);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, stream, Bytes.listHash(payloads), baseOffset);
        }

        @Override
        public String toString() {
            return "EventBatch[tenantId=" + tenantId + ", namespace=" + namespace + ", stream=" + stream
                + ", payloads=" + Bytes.describe(payloads) + ", baseOffset=" + Bytes.u64(baseOffset) + "]";
        }
    }

    /**
     * {@code cache_put} (C to B). Keys: {@code tenant_id, namespace, cache, key, value, request_id?, ttl_ms}.
     * {@code ttl_ms} is always written ({@code null} = no expiry) and may be absent on input.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param key       cache key
     * @param value     value bytes; required
     * @param requestId u64; with it the broker replies {@code cache_ok}, without it {@code ok} and closes
     * @param ttlMs     u64 time to live in ms, or null for no expiry
     */
    record CachePut(String tenantId, String namespace, String cache, String key, byte[] value,
                    Long requestId, Long ttlMs) implements Message {
        public CachePut {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_PUT;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CachePut c && tenantId.equals(c.tenantId) && namespace.equals(c.namespace)
                && cache.equals(c.cache) && key.equals(c.key) && Arrays.equals(value, c.value)
                && Objects.equals(requestId, c.requestId) && Objects.equals(ttlMs, c.ttlMs);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, cache, key, Arrays.hashCode(value), requestId, ttlMs);
        }

        @Override
        public String toString() {
            return "CachePut[tenantId=" + tenantId + ", namespace=" + namespace + ", cache=" + cache
                + ", key=" + key + ", value=" + Bytes.describe(value) + ", requestId=" + Bytes.u64(requestId)
                + ", ttlMs=" + Bytes.u64(ttlMs) + "]";
        }
    }

    /**
     * {@code cache_get} (C to B). Keys: {@code tenant_id, namespace, cache, key, request_id?}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param key       cache key
     * @param requestId u64
     */
    record CacheGet(String tenantId, String namespace, String cache, String key, Long requestId)
        implements Message {
        public CacheGet {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_GET;
        }
    }

    /**
     * {@code cache_value} (B to C). Keys: {@code tenant_id, namespace, cache, key, value, request_id?}.
     * The {@code value} key is always present: {@code null} means miss or expired.
     *
     * @param tenantId  tenant (echoed)
     * @param namespace namespace (echoed)
     * @param cache     cache (echoed)
     * @param key       key (echoed)
     * @param value     value bytes, or null on a miss
     * @param requestId u64 (echoed)
     */
    record CacheValue(String tenantId, String namespace, String cache, String key, byte[] value,
                      Long requestId) implements Message {
        public CacheValue {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_VALUE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CacheValue c && tenantId.equals(c.tenantId) && namespace.equals(c.namespace)
                && cache.equals(c.cache) && key.equals(c.key) && Arrays.equals(value, c.value)
                && Objects.equals(requestId, c.requestId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(tenantId, namespace, cache, key, Arrays.hashCode(value), requestId);
        }

        @Override
        public String toString() {
            return "CacheValue[tenantId=" + tenantId + ", namespace=" + namespace + ", cache=" + cache
                + ", key=" + key + ", value=" + Bytes.describe(value) + ", requestId=" + Bytes.u64(requestId) + "]";
        }
    }

    /**
     * {@code cache_ok} (B to C): reply to a {@code cache_put} (or, extension, a {@code cache_delete})
     * that carried a request id. Keys: {@code request_id, offset?} ({@code offset}:
     * {@link Capabilities#CACHE_EXT}).
     *
     * @param requestId u64
     * @param offset    u64 cache change offset of the put or delete, the one watchers see it at (extension)
     */
    record CacheOk(long requestId, Long offset) implements Message {
        /** The upstream form. */
        public CacheOk(long requestId) {
            this(requestId, null);
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_OK;
        }
    }

    /**
     * {@code publish_ok} (B to C): ack of a JSON acked publish. Keys: {@code request_id, offset?, count?,
     * shard?}; the last three are extensions ({@code offset}/{@code count}:
     * {@link FrameFlags#EVENT_BATCH_OFFSETS}; {@code shard}: {@link Capabilities#SHARDS}).
     *
     * @param requestId u64
     * @param offset    u64 first offset assigned to the published events
     * @param count     u32 number of events appended
     * @param shard     u32 shard the events went to
     */
    record PublishOk(long requestId, Long offset, Integer count, Integer shard) implements Message {
        /** The upstream form. */
        public PublishOk(long requestId) {
            this(requestId, null, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.PUBLISH_OK;
        }
    }

    /**
     * {@code publish_error} (B to C): negative ack of a JSON acked publish. Keys: {@code request_id,
     * message, code?} ({@code code}: {@link Capabilities#ERROR_CODES}, values in {@link ErrorCodes}).
     *
     * @param requestId u64
     * @param message   human-readable reason
     * @param code      stable error code (extension)
     */
    record PublishError(long requestId, String message, String code, LeaderInfo leader) implements Message {
        public PublishError {
            Objects.requireNonNull(message, "message");
        }

        /** Without a leader. */
        public PublishError(long requestId, String message, String code) {
            this(requestId, message, code, null);
        }

        /** The upstream form. */
        public PublishError(long requestId, String message) {
            this(requestId, message, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.PUBLISH_ERROR;
        }
    }

    /** {@code ok} (B to C): no fields. Extra keys on input are ignored. */
    record Ok() implements Message {
        @Override
        public MessageType type() {
            return MessageType.OK;
        }
    }

    /**
     * {@code error} (B to C). Keys: {@code message, code?, request_id?, offset?}; {@code code},
     * {@code request_id} and {@code offset} are extensions ({@link Capabilities#ERROR_CODES}). Named
     * {@code ErrorMessage} so it never shadows {@link java.lang.Error}.
     *
     * @param message   human-readable reason
     * @param code      stable error code (extension), see {@link ErrorCode}
     * @param requestId u64 id of the request that failed (extension)
     * @param offset    u64, for cursor errors: the oldest retained offset ({@code cursor_too_old}) or the next
     *                  offset ({@code cursor_in_future}) (extension)
     */
    record ErrorMessage(String message, String code, Long requestId, Long offset, LeaderInfo leader)
        implements Message {
        public ErrorMessage {
            Objects.requireNonNull(message, "message");
        }

        /** Without a leader. */
        public ErrorMessage(String message, String code, Long requestId, Long offset) {
            this(message, code, requestId, offset, null);
        }

        /** Without an offset. */
        public ErrorMessage(String message, String code, Long requestId) {
            this(message, code, requestId, null, null);
        }

        /** The upstream form. */
        public ErrorMessage(String message) {
            this(message, null, null, null, null);
        }

        @Override
        public MessageType type() {
            return MessageType.ERROR;
        }
    }

    // ---------------------------------------------------------------- extensions

    /**
     * {@code gap} (B to C, extension {@link Capabilities#GAP_NOTICES}): the subscriber missed the
     * inclusive offset range {@code from..to}; the next events follow it. Keys: {@code subscription_id,
     * shard?, from, to, reason}.
     *
     * @param subscriptionId u64
     * @param shard          u32 shard the range belongs to
     * @param from           u64 first missed offset
     * @param to             u64 last missed offset, {@code >= from} (unsigned)
     * @param reason         why, e.g. {@code queue_overflow}, {@code retention}, {@code restart}
     */
    record Gap(long subscriptionId, Integer shard, long from, long to, String reason) implements Message {
        public Gap {
            Objects.requireNonNull(reason, "reason");
            if (Long.compareUnsigned(from, to) > 0) {
                throw new IllegalArgumentException("gap from " + Long.toUnsignedString(from) + " > to "
                    + Long.toUnsignedString(to));
            }
        }

        @Override
        public MessageType type() {
            return MessageType.GAP;
        }
    }

    /**
     * {@code stream_create} (C to B, extension {@link Capabilities#ADMIN}). Keys: {@code tenant_id,
     * namespace, stream, shards?, durable?, fsync?, retention_bytes?, retention_age_ms?, request_id?}.
     * Absent settings take the broker's defaults. Reply: {@code stream_info} or {@code error}.
     *
     * @param tenantId       tenant
     * @param namespace      namespace
     * @param stream         stream
     * @param shards         u32 shard count
     * @param durable        log-backed or not
     * @param fsync          {@code on_commit | periodic | none}
     * @param retentionBytes u64
     * @param retentionAgeMs u64
     * @param requestId      u64, echoed in the reply
     * @param consistency    {@code leader | quorum} (a cluster's durable streams)
     * @param replicas       u32 copies of each shard (a cluster's durable streams)
     * @param noReplay       ephemeral streams: lost events are only counted by a relaying node, never replayed
     */
    record StreamCreate(String tenantId, String namespace, String stream, Integer shards, Boolean durable,
                        String fsync, Long retentionBytes, Long retentionAgeMs, Long requestId, String consistency,
                        Integer replicas, Boolean noReplay)
        implements Message {
        public StreamCreate {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        /** Without replication fields (a broker that is not clustered, or the defaults). */
        public StreamCreate(String tenantId, String namespace, String stream, Integer shards, Boolean durable,
                String fsync, Long retentionBytes, Long retentionAgeMs, Long requestId) {
            this(tenantId, namespace, stream, shards, durable, fsync, retentionBytes, retentionAgeMs, requestId, null,
                    null, null);
        }

        /** Without {@code no_replay}. */
        public StreamCreate(String tenantId, String namespace, String stream, Integer shards, Boolean durable,
                String fsync, Long retentionBytes, Long retentionAgeMs, Long requestId, String consistency,
                Integer replicas) {
            this(tenantId, namespace, stream, shards, durable, fsync, retentionBytes, retentionAgeMs, requestId,
                    consistency, replicas, null);
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_CREATE;
        }
    }

    /**
     * {@code stream_describe} (C to B, extension {@link Capabilities#ADMIN}). Keys: {@code tenant_id,
     * namespace, stream, request_id?}. Reply: {@code stream_info} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param requestId u64, echoed in the reply
     */
    record StreamDescribe(String tenantId, String namespace, String stream, Long requestId) implements Message {
        public StreamDescribe {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_DESCRIBE;
        }
    }

    /**
     * {@code stream_list} (C to B, extension {@link Capabilities#ADMIN}). Keys: {@code tenant_id,
     * namespace?, request_id?}. Reply: {@code stream_list_result} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace to list; null = every namespace of the tenant
     * @param requestId u64, echoed in the reply
     */
    record StreamList(String tenantId, String namespace, Long requestId) implements Message {
        public StreamList {
            Objects.requireNonNull(tenantId, "tenant_id");
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_LIST;
        }
    }

    /**
     * {@code stream_info} (B to C, extension {@link Capabilities#ADMIN}). The description's keys are
     * written flat into the message: {@code tenant_id, namespace, stream, shards, durable, fsync?,
     * retention_bytes?, retention_age_ms?, shard_info?, request_id?}.
     *
     * @param stream    the stream's description
     * @param requestId u64, echoed from the request
     */
    record StreamInfo(StreamDescription stream, Long requestId) implements Message {
        public StreamInfo {
            Objects.requireNonNull(stream, "stream");
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_INFO;
        }
    }

    /**
     * {@code stream_list_result} (B to C, extension {@link Capabilities#ADMIN}). Keys: {@code streams,
     * request_id?}; each element of {@code streams} is a {@link StreamDescription} object.
     *
     * @param streams   the streams; copied into an immutable list
     * @param requestId u64, echoed from the request
     */
    record StreamListResult(List<StreamDescription> streams, Long requestId) implements Message {
        public StreamListResult {
            streams = List.copyOf(Objects.requireNonNull(streams, "streams"));
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_LIST_RESULT;
        }
    }

    /**
     * {@code stream_delete} (C to B, extension {@link Capabilities#ADMIN}). Keys: {@code tenant_id, namespace,
     * stream, force?, request_id?}. Deletes the stream and its data; refused with {@code in_use} while it has
     * subscribers unless {@code force} (which ends them). Reply: {@code stream_deleted} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param force     end its subscriptions if it has any
     * @param requestId u64, echoed in the reply
     */
    record StreamDelete(String tenantId, String namespace, String stream, Boolean force, Long requestId)
        implements Message {
        public StreamDelete {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_DELETE;
        }
    }

    /**
     * {@code stream_deleted} (B to C, extension {@link Capabilities#ADMIN}): the reply to {@code stream_delete}.
     * Keys: {@code tenant_id, namespace, stream, request_id?}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param stream    stream
     * @param requestId u64, echoed from the request
     */
    record StreamDeleted(String tenantId, String namespace, String stream, Long requestId) implements Message {
        public StreamDeleted {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        @Override
        public MessageType type() {
            return MessageType.STREAM_DELETED;
        }
    }

    // ---------------------------------------------------------------- multiplexed subscriptions (SUBSCRIPTION_MUX)

    /**
     * {@code mux_subscribe} (C to B, extension {@link Capabilities#SUBSCRIPTION_MUX}): a subscription carried by
     * the session stream this arrives on, alongside others. Keys: {@code request_id, tenant_id, namespace,
     * stream, start?, shard?, queue_policy?, queue_events?, queue_bytes?, incarnation?, credit}. The fields
     * mean what they mean on {@code subscribe}; {@code credit} is how many events the client will take on each
     * of the subscription's channels before it grants more ({@code credit}). Reply: {@code mux_subscribed}, or
     * {@code error{code, request_id, offset?}}.
     *
     * @param requestId   u64, echoed in the reply
     * @param tenantId    tenant
     * @param namespace   namespace
     * @param stream      stream
     * @param start       where to start, or null for latest
     * @param shard       u32 one shard, or null for every shard
     * @param queuePolicy broker-side queue policy, or null for the stream's default
     * @param queueEvents u32 smaller broker-side queue, or null
     * @param queueBytes  u64 smaller broker-side queue, or null
     * @param incarnation u64 incarnation a resume offset belongs to, or null
     * @param credit      u32 (unsigned) initial credit per channel, in events (at least 1)
     */
    record MuxSubscribe(long requestId, String tenantId, String namespace, String stream, StartPosition start,
                        Integer shard, QueuePolicy queuePolicy, Integer queueEvents, Long queueBytes,
                        Long incarnation, int credit) implements Message {
        public MuxSubscribe {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(stream, "stream");
        }

        @Override
        public MessageType type() {
            return MessageType.MUX_SUBSCRIBE;
        }
    }

    /**
     * {@code mux_subscribed} (B to C, extension {@link Capabilities#SUBSCRIPTION_MUX}). Keys: {@code request_id,
     * subscription_id, shards, channels, incarnations?}: the subscription's shards and, at the same index, the
     * channel its events arrive on ({@link BinaryMuxEventBatch}) and its credit is granted for, and (ephemeral
     * streams, {@link Capabilities#GAP_NOTICES}) the shard's incarnation, as {@code event_stream_hello} gives it.
     *
     * @param requestId      u64, echoed from the request
     * @param subscriptionId u64
     * @param shards         u32 shards
     * @param channels       u32 channels, one per shard
     * @param incarnations   u64 incarnation per shard, or null (a durable stream)
     */
    record MuxSubscribed(long requestId, long subscriptionId, List<Integer> shards, List<Integer> channels,
                         List<Long> incarnations) implements Message {
        public MuxSubscribed {
            shards = List.copyOf(Objects.requireNonNull(shards, "shards"));
            channels = List.copyOf(Objects.requireNonNull(channels, "channels"));
            incarnations = incarnations == null ? null : List.copyOf(incarnations);
            if (shards.size() != channels.size() || (incarnations != null && incarnations.size() != shards.size())) {
                throw new IllegalArgumentException("mux_subscribed: " + shards.size() + " shards, "
                    + channels.size() + " channels, " + (incarnations == null ? 0 : incarnations.size())
                    + " incarnations");
            }
        }

        @Override
        public MessageType type() {
            return MessageType.MUX_SUBSCRIBED;
        }
    }

    /**
     * {@code credit} (C to B, extension {@link Capabilities#SUBSCRIPTION_MUX}): the client will take
     * {@code events} more events on {@code channel}. Keys: {@code channel, events}.
     *
     * @param channel u32 (unsigned)
     * @param events  u32 (unsigned), at least 1
     */
    record Credit(int channel, int events) implements Message {
        @Override
        public MessageType type() {
            return MessageType.CREDIT;
        }
    }

    /**
     * {@code unsubscribe} (C to B, extension {@link Capabilities#SUBSCRIPTION_MUX}): ends a subscription of this
     * session. Keys: {@code subscription_id}.
     *
     * @param subscriptionId u64
     */
    record Unsubscribe(long subscriptionId) implements Message {
        @Override
        public MessageType type() {
            return MessageType.UNSUBSCRIBE;
        }
    }

    /**
     * {@code subscription_ended} (B to C, extension {@link Capabilities#SUBSCRIPTION_MUX}): the broker ended one
     * channel of a subscription (stream deleted, broker shutting down, history lost); what was sent before it
     * stands. Keys: {@code channel, code, message}.
     *
     * @param channel u32
     * @param code    stable error code
     * @param message human-readable reason
     */
    record SubscriptionEnded(int channel, String code, String message) implements Message {
        public SubscriptionEnded {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public MessageType type() {
            return MessageType.SUBSCRIPTION_ENDED;
        }
    }

    // ---------------------------------------------------------------- cache extensions (CACHE_EXT)

    /**
     * {@code cache_delete} (C to B, extension {@link Capabilities#CACHE_EXT}). Keys: {@code tenant_id,
     * namespace, cache, key, request_id?}. Reply as for {@code cache_put}: {@code cache_ok} when a request
     * id was given (with the change {@code offset}), else {@code ok}; or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param key       cache key
     * @param requestId u64, echoed in the reply
     */
    record CacheDelete(String tenantId, String namespace, String cache, String key, Long requestId)
        implements Message {
        public CacheDelete {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_DELETE;
        }
    }

    /**
     * {@code cache_create} (C to B, extension {@link Capabilities#CACHE_EXT}). Keys: {@code tenant_id,
     * namespace, cache, backing?, ttl_ms?, max_entries?, fsync?, request_id?, consistency?}. Absent settings take
     * the broker's defaults. Reply: {@code cache_info} or {@code error}. {@code consistency} is a
     * {@link Capabilities#CLUSTER} field: a broker that is not clustered refuses {@code quorum}.
     *
     * <p>{@code backing} and {@code fsync} are plain strings on the wire (values in
     * {@link CacheInfo#BACKING_MEMORY}/{@link CacheInfo#BACKING_LOG}; fsync as for {@code stream_create}),
     * not checked by the codec, so that a newer value does not break an older peer; the broker validates.
     *
     * @param tenantId   tenant
     * @param namespace  namespace
     * @param cache      cache name
     * @param backing    {@code memory | log}
     * @param ttlMs      u64 default time to live of entries put without {@code ttl_ms}
     * @param maxEntries u64 bound on the number of entries
     * @param fsync       fsync policy of a log-backed cache ({@code on_commit | periodic | none})
     * @param requestId   u64, echoed in the reply
     * @param consistency {@code leader | quorum} (a cluster's log caches; plain string, the broker validates);
     *                    null = {@code leader}
     */
    record CacheCreate(String tenantId, String namespace, String cache, String backing, Long ttlMs,
                       Long maxEntries, String fsync, Long requestId, String consistency) implements Message {
        public CacheCreate {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
        }

        /** Without {@code consistency} (the broker's default, {@code leader}). */
        public CacheCreate(String tenantId, String namespace, String cache, String backing, Long ttlMs,
                Long maxEntries, String fsync, Long requestId) {
            this(tenantId, namespace, cache, backing, ttlMs, maxEntries, fsync, requestId, null);
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_CREATE;
        }
    }

    /**
     * {@code cache_describe} (C to B, extension {@link Capabilities#CACHE_EXT}). Keys: {@code tenant_id,
     * namespace, cache, request_id?}. Reply: {@code cache_info} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param requestId u64, echoed in the reply
     */
    record CacheDescribe(String tenantId, String namespace, String cache, Long requestId) implements Message {
        public CacheDescribe {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_DESCRIBE;
        }
    }

    /**
     * {@code cache_drop} (C to B, extension {@link Capabilities#CACHE_EXT}). Keys: {@code tenant_id, namespace,
     * cache, force?, request_id?}. Drops the cache and its data; refused with {@code in_use} while it has
     * watchers unless {@code force} (which ends them). Reply: {@code cache_dropped} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param force     end its watches if it has any
     * @param requestId u64, echoed in the reply
     */
    record CacheDrop(String tenantId, String namespace, String cache, Boolean force, Long requestId)
        implements Message {
        public CacheDrop {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_DROP;
        }
    }

    /**
     * {@code cache_dropped} (B to C, extension {@link Capabilities#CACHE_EXT}): the reply to {@code cache_drop}.
     * Keys: {@code tenant_id, namespace, cache, request_id?}.
     *
     * @param tenantId  tenant
     * @param namespace namespace
     * @param cache     cache name
     * @param requestId u64, echoed from the request
     */
    record CacheDropped(String tenantId, String namespace, String cache, Long requestId) implements Message {
        public CacheDropped {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_DROPPED;
        }
    }

    /**
     * {@code cache_list} (C to B, extension {@link Capabilities#CACHE_EXT}). Keys: {@code tenant_id,
     * namespace?, request_id?}. Reply: {@code cache_list_result} or {@code error}.
     *
     * @param tenantId  tenant
     * @param namespace namespace to list; null = every namespace of the tenant
     * @param requestId u64, echoed in the reply
     */
    record CacheList(String tenantId, String namespace, Long requestId) implements Message {
        public CacheList {
            Objects.requireNonNull(tenantId, "tenant_id");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_LIST;
        }
    }

    /**
     * {@code cluster_status} (C to B, extension {@link Capabilities#CLUSTER}): what the answering node knows of
     * the cluster. Keys: {@code request_id?}.
     */
    record ClusterStatus(Long requestId) implements Message {
        @Override
        public MessageType type() {
            return MessageType.CLUSTER_STATUS;
        }
    }

    /**
     * {@code cluster_status_result} (B to C, extension {@link Capabilities#CLUSTER}). Keys: {@code node, nodes,
     * shards, request_id?}.
     *
     * @param node   the answering node's id
     * @param nodes  every member, sorted by id
     * @param shards every replicated unit; progress ({@code hwm}, {@code log_end}, {@code lag}) only for the
     *               units the answering node leads
     */
    record ClusterStatusResult(String node, List<ClusterNodeStatus> nodes, List<ClusterShardStatus> shards,
                               Long requestId) implements Message {
        public ClusterStatusResult {
            Objects.requireNonNull(node, "node");
            nodes = List.copyOf(Objects.requireNonNull(nodes, "nodes"));
            shards = List.copyOf(Objects.requireNonNull(shards, "shards"));
        }

        @Override
        public MessageType type() {
            return MessageType.CLUSTER_STATUS_RESULT;
        }
    }

    /**
     * {@code cache_list_result} (B to C, extension {@link Capabilities#CACHE_EXT}). Keys: {@code caches,
     * request_id?}; each element of {@code caches} is a {@link CacheDescription} object.
     *
     * @param caches    the caches, sorted by name; copied into an immutable list
     * @param requestId u64, echoed from the request
     */
    record CacheListResult(List<CacheDescription> caches, Long requestId) implements Message {
        public CacheListResult {
            caches = List.copyOf(Objects.requireNonNull(caches, "caches"));
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_LIST_RESULT;
        }
    }

    /**
     * {@code cache_info} (B to C, extension {@link Capabilities#CACHE_EXT}): a cache's configuration and
     * state, the reply to {@code cache_create} and {@code cache_describe}. Keys: {@code tenant_id,
     * namespace, cache, backing, ttl_ms?, max_entries, fsync?, entries?, next_offset?, request_id?,
     * consistency?}.
     *
     * @param tenantId   tenant
     * @param namespace  namespace
     * @param cache      cache name
     * @param backing    {@code memory | log} (plain string, see {@link CacheCreate})
     * @param ttlMs      u64 default time to live, or null for none
     * @param maxEntries u64 bound on the number of entries
     * @param fsync      fsync policy, or null if not applicable
     * @param entries    u64 current number of entries
     * @param nextOffset u64 the change offset the next put/delete/expiry/eviction will get
     * @param requestId   u64, echoed from the request
     * @param consistency {@code leader | quorum} from a clustered broker (extension {@link Capabilities#CLUSTER}),
     *                    or whenever it is not {@code leader}; null otherwise (which means {@code leader})
     */
    record CacheInfo(String tenantId, String namespace, String cache, String backing, Long ttlMs,
                     long maxEntries, String fsync, Long entries, Long nextOffset, Long requestId, String consistency)
        implements Message {
        /** {@code backing} of a cache held in memory only. */
        public static final String BACKING_MEMORY = "memory";
        /** {@code backing} of a cache whose changes are written to a log and survive a restart. */
        public static final String BACKING_LOG = "log";

        public CacheInfo {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
            Objects.requireNonNull(backing, "backing");
        }

        /** Without {@code consistency} (a broker that is not clustered, {@code leader}). */
        public CacheInfo(String tenantId, String namespace, String cache, String backing, Long ttlMs,
                long maxEntries, String fsync, Long entries, Long nextOffset, Long requestId) {
            this(tenantId, namespace, cache, backing, ttlMs, maxEntries, fsync, entries, nextOffset, requestId, null);
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_INFO;
        }
    }

    /**
     * {@code cache_watch} (C to B, extension {@link Capabilities#CACHE_EXT}): follow a cache's changes
     * on this stream. Keys: {@code tenant_id, namespace, cache, prefix?, from_offset?, queue_events?,
     * request_id?}. The broker answers with {@code watch_snapshot} chunks (only when {@code from_offset}
     * is absent), then {@code watch_change} messages, until {@code watch_ended} or {@code error}.
     *
     * @param tenantId    tenant
     * @param namespace   namespace
     * @param cache       cache name
     * @param prefix      only keys starting with this prefix; null = every key
     * @param fromOffset  u64 resume: the first change offset not yet seen (a previous
     *                    {@link WatchEnded#resumeFrom()}, or the last seen change offset + 1); null =
     *                    start with a snapshot
     * @param queueEvents u32 bound of the broker's queue for this watcher, in changes
     * @param requestId   u64, echoed in an {@code error}
     */
    record CacheWatch(String tenantId, String namespace, String cache, String prefix, Long fromOffset,
                      Integer queueEvents, Long requestId) implements Message {
        public CacheWatch {
            Objects.requireNonNull(tenantId, "tenant_id");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cache, "cache");
        }

        @Override
        public MessageType type() {
            return MessageType.CACHE_WATCH;
        }
    }

    /**
     * {@code watch_snapshot} (B to C, extension {@link Capabilities#CACHE_EXT}): one chunk of the
     * initial snapshot of a {@code cache_watch}. Keys: {@code offset, entries, last}; each element of
     * {@code entries} is a {@link CacheEntry} object. The snapshot is the cache as of just before change
     * {@code offset}: the changes that follow start at {@code offset}. Every chunk of one snapshot
     * carries the same {@code offset}; the final one has {@code last = true}.
     *
     * @param offset  u64 first change offset not reflected in the snapshot
     * @param entries the entries of this chunk (may be empty); copied into an immutable list
     * @param last    whether this is the final chunk of the snapshot
     */
    record WatchSnapshot(long offset, List<CacheEntry> entries, boolean last) implements Message {
        public WatchSnapshot {
            entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        }

        @Override
        public MessageType type() {
            return MessageType.WATCH_SNAPSHOT;
        }

        @Override
        public String toString() {
            long bytes = 0;
            for (CacheEntry e : entries) {
                bytes += e.value().length;
            }
            return "WatchSnapshot[offset=" + Long.toUnsignedString(offset) + ", entries=[" + entries.size()
                + " entries, " + bytes + " bytes], last=" + last + "]";
        }
    }

    /**
     * {@code watch_change} (B to C, extension {@link Capabilities#CACHE_EXT}): one change of a watched
     * cache. Keys: {@code offset, key, op, value?, expires_at_ms?}.
     *
     * <p>{@code op} is a plain string on the wire ({@link #OP_PUT}, {@link #OP_DELETE},
     * {@link #OP_EXPIRE}, {@link #OP_EVICT}), not checked by the codec, so that a newer broker can add
     * kinds of change; a client skips (or treats as a removal) an op it does not know. {@code value} is
     * present for {@code put}: the codec does not enforce that either, the SDK does.
     *
     * @param offset      u64 change offset (consecutive per cache)
     * @param key         the key that changed
     * @param op          {@code put | delete | expire | evict}
     * @param value       the new value (for {@code put}), or null
     * @param expiresAtMs u64 absolute expiry of the new value, epoch ms, or null for none
     */
    record WatchChange(long offset, String key, String op, byte[] value, Long expiresAtMs) implements Message {
        /** The key was set; {@code value} holds the new value. */
        public static final String OP_PUT = "put";
        /** The key was deleted by a client. */
        public static final String OP_DELETE = "delete";
        /** The key's time to live ran out. */
        public static final String OP_EXPIRE = "expire";
        /** The key was evicted to respect {@code max_entries}. */
        public static final String OP_EVICT = "evict";

        public WatchChange {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(op, "op");
        }

        @Override
        public MessageType type() {
            return MessageType.WATCH_CHANGE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WatchChange c && offset == c.offset && key.equals(c.key) && op.equals(c.op)
                && Arrays.equals(value, c.value) && Objects.equals(expiresAtMs, c.expiresAtMs);
        }

        @Override
        public int hashCode() {
            return Objects.hash(offset, key, op, Arrays.hashCode(value), expiresAtMs);
        }

        @Override
        public String toString() {
            return "WatchChange[offset=" + Long.toUnsignedString(offset) + ", key=" + key + ", op=" + op
                + ", value=" + Bytes.describe(value) + ", expiresAtMs=" + Bytes.u64(expiresAtMs) + "]";
        }
    }

    /**
     * {@code watch_ended} (B to C, extension {@link Capabilities#CACHE_EXT}): the broker stops a watch;
     * nothing follows on the stream. Keys: {@code resume_from, reason, message?}. A client resumes
     * with {@code cache_watch.from_offset = resume_from}.
     *
     * <p>{@code reason} is a plain string ({@link #REASON_OVERFLOW}, {@link #REASON_SHUTDOWN},
     * {@link #REASON_ERROR}, ...), not checked by the codec, so that a newer broker can add reasons.
     *
     * @param resumeFrom u64 the first change offset the watcher did not receive
     * @param reason     why the watch ended
     * @param message    human-readable detail
     */
    record WatchEnded(long resumeFrom, String reason, String message) implements Message {
        /** The watcher did not keep up and its queue overflowed. */
        public static final String REASON_OVERFLOW = "overflow";
        /** The broker is shutting down. */
        public static final String REASON_SHUTDOWN = "shutdown";
        /** Any other failure; see {@code message}. */
        public static final String REASON_ERROR = "error";

        public WatchEnded {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public MessageType type() {
            return MessageType.WATCH_ENDED;
        }
    }
}
