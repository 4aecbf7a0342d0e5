package dev.felix.client;

import dev.felix.wire.Message;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the connected broker knows of its cluster. Each call is one request on its own stream.
 *
 * <p><b>Threads and buffers.</b> Thread-safe and stateless but for a request-id counter; each call runs on the
 * caller's thread and waits for its reply, which the connection's event loop delivers.
 */
public final class ClusterAdmin {

    private final FelixClient client;
    private final AtomicLong ids = new AtomicLong();

    ClusterAdmin(FelixClient client) {
        this.client = client;
    }

    /**
     * Members and their liveness, every replicated shard and cache with its leader, epoch, replicas and status,
     * and the progress (high watermark, log end, follower lag) of the ones the connected node leads. A broker
     * that is not clustered answers {@code bad_request}.
     */
    public Message.ClusterStatusResult status() {
        return (Message.ClusterStatusResult) OneShotRequest.send(client, new Message.ClusterStatus(ids.incrementAndGet()));
    }
}
