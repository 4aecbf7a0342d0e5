package dev.felix.demos.divergence;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.wire.QueuePolicy;
import dev.felix.wire.ShardInfo;
import java.time.Duration;
import java.util.List;

/** A change source on a one-shard stream: changes are events; consumers subscribe from the tail. */
final class StreamSource implements ChangeSource {

    static final StreamRef STREAM = new StreamRef("t1", "default", "config-changes");

    private final QueuePolicy subscriberPolicy;
    private final int queueEvents;

    private StreamSource(QueuePolicy subscriberPolicy, int queueEvents) {
        this.subscriberPolicy = subscriberPolicy;
        this.queueEvents = queueEvents;
    }

    /** Creates the stream and returns its source; subscribers get {@code policy} and a queue of {@code queueEvents}. */
    static StreamSource create(FelixClient admin, StreamSpec spec, QueuePolicy policy, int queueEvents) {
        admin.streams().create(STREAM, spec);
        return new StreamSource(policy, queueEvents);
    }

    @Override
    public Writer writer(FelixClient client, int payloadBytes) {
        Publisher publisher = client.publisher(STREAM);
        // One unacknowledged batch per call: one frame, offsets contiguous and in order.
        return (changes, accepted) -> publisher.sendBatch(changes.stream().map(c -> c.encode(payloadBytes)).toList())
                .thenRun(() -> accepted.accept(changes.size()));
    }

    @Override
    public Replica replica(String name, FelixClient client, int keys) {
        long start = publishedEnd(client);
        Subscription s = client.subscribe(SubscribeOptions.of(STREAM).withQueue(subscriberPolicy, queueEvents));
        return new DivergenceConsumer(name, new Feed(s, start), keys);
    }

    @Override
    public long publishedEnd(FelixClient client) {
        List<ShardInfo> shards = client.streams().describe(STREAM).shardInfo();
        return shards == null || shards.isEmpty() ? 0 : shards.get(0).nextOffset();
    }

    /** Subscription items as feed items. */
    private record Feed(Subscription subscription, long startOffset) implements ChangeFeed {

        @Override
        public FeedItem next(Duration timeout) throws FeedEndedException {
            Item item;
            try {
                item = subscription.next(timeout);
            } catch (FelixClientException e) {
                throw new FeedEndedException(subscription.endCause() == null ? "subscription closed"
                        : "subscription error: " + e.getMessage());
            }
            if (item instanceof Event e) {
                return new FeedItem.Change(e.offset(), e.payload());
            }
            if (item instanceof Gap g) {
                return new FeedItem.Missed(g.from(), g.to(), g.reason());
            }
            return null;
        }

        @Override
        public void close() {
            subscription.close();
        }
    }
}
