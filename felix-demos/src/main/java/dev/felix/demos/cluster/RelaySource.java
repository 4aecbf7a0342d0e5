package dev.felix.demos.cluster;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Subscription;
import java.time.Duration;

/**
 * What one subscriber of {@code felix demo cluster-relay-load} reads from: an SDK subscription (gap notices
 * negotiated) on a connection of its own, or a {@link PlainSubscriber} (none). Closing it closes the connection.
 *
 * <p><b>Threads.</b> One consumer thread.
 */
interface RelaySource extends AutoCloseable {

    /** What the connection handed the subscriber next. */
    sealed interface Got {
        /** {@code count} events from {@code base}. */
        record Events(long base, int count) implements Got {
        }

        /** {@code from..to} (inclusive) will never arrive. */
        record GapNotice(long from, long to, String reason) implements Got {
        }

        /** The subscription ended. */
        record End(FelixClientException cause) implements Got {
        }
    }

    /** The next item, or null if none came within {@code timeout}. */
    Got next(Duration timeout) throws InterruptedException;

    @Override
    void close();

    static RelaySource sdk(FelixClient client, Subscription subscription) {
        return new Sdk(client, subscription);
    }

    static RelaySource plain(PlainSubscriber subscriber) {
        return new Plain(subscriber);
    }

    /** Events one by one, gaps, and the end as the exception {@code next} throws. */
    record Sdk(FelixClient client, Subscription subscription) implements RelaySource {
        @Override
        public Got next(Duration timeout) {
            try {
                Item item = subscription.next(timeout);
                if (item instanceof Event e) {
                    return new Got.Events(e.offset(), 1);
                }
                if (item instanceof Gap g) {
                    return new Got.GapNotice(g.from(), g.to(), g.reason());
                }
                return null;
            } catch (FelixClientException e) {
                return new Got.End(e);
            }
        }

        @Override
        public void close() {
            subscription.close();
            client.close();
        }
    }

    /** Batches and the end; never a gap (it did not ask for them). */
    record Plain(PlainSubscriber subscriber) implements RelaySource {
        @Override
        public Got next(Duration timeout) throws InterruptedException {
            PlainSubscriber.Received r = subscriber.next(timeout);
            if (r instanceof PlainSubscriber.Events e) {
                return new Got.Events(e.base(), e.count());
            }
            if (r instanceof PlainSubscriber.Ended e) {
                return new Got.End(e.cause());
            }
            return null;
        }

        @Override
        public void close() {
            subscriber.close();
        }
    }
}
