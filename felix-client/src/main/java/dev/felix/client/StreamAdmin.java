package dev.felix.client;

import dev.felix.wire.Message;
import dev.felix.wire.StreamDescription;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stream administration: create, describe, list, delete. Each call is one request on its own stream.
 *
 * <p><b>Threads and buffers.</b> Thread-safe and stateless but for a request-id counter; each call runs on the
 * caller's thread, which waits for the reply (bounded by the request timeout). Frames are owned as in
 * {@code OneShotRequest}.
 */
public final class StreamAdmin {

    private final FelixClient client;
    private final AtomicLong ids = new AtomicLong();

    StreamAdmin(FelixClient client) {
        this.client = client;
    }

    /** Creates a stream (idempotent for the same definition; {@code already_exists} otherwise). */
    public StreamDescription create(StreamRef stream, StreamSpec spec) {
        Message reply = request(new Message.StreamCreate(stream.tenant(), stream.namespace(), stream.stream(),
                spec.shards(), spec.durable(), spec.fsync(), spec.retentionBytes(),
                spec.retentionAge() == null ? null : spec.retentionAge().toMillis(), ids.incrementAndGet(),
                spec.consistency(), spec.replicas(), spec.noReplay() ? Boolean.TRUE : null));
        return ((Message.StreamInfo) reply).stream();
    }

    /** Describes one stream, with its shards' offsets; {@code not_found} if it does not exist. */
    public StreamDescription describe(StreamRef stream) {
        Message reply = request(new Message.StreamDescribe(stream.tenant(), stream.namespace(), stream.stream(),
                ids.incrementAndGet()));
        return ((Message.StreamInfo) reply).stream();
    }

    /** Streams of the client's tenant, of one namespace or (null) all. */
    public List<StreamDescription> list(String namespace) {
        Message reply = request(new Message.StreamList(client.config().tenant(), namespace, ids.incrementAndGet()));
        return ((Message.StreamListResult) reply).streams();
    }

    /**
     * Deletes a stream and its data; {@code in_use} while it has subscribers unless {@code force} (which ends
     * their subscriptions with {@code not_found}); {@code not_found} if it does not exist.
     */
    public void delete(StreamRef stream, boolean force) {
        request(new Message.StreamDelete(stream.tenant(), stream.namespace(), stream.stream(), force,
                ids.incrementAndGet()));
    }

    private Message request(Message request) {
        return OneShotRequest.send(client, request);
    }
}
