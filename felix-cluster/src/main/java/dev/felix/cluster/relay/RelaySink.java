package dev.felix.cluster.relay;

import dev.felix.core.FelixError;
import dev.felix.core.stream.Delivery;

/**
 * Where a relay delivers one local subscription: typically the subscription's bounded queue in front of its
 * event stream (the same encode-once path a leader's subscriber uses).
 *
 * <p><b>Threads.</b> {@link #offer} is called by the subscription's relay worker, never concurrently and always
 * under the subscription's fence lock; it must not block (a write that cannot proceed returns false) and must
 * not call back into the relay. {@link #end} is called once, by the node's paced closer.
 */
public interface RelaySink {

    /**
     * Hands over an event batch or a gap notice, in offset order. The batch is shared with every other
     * subscription: do not modify it.
     *
     * @return false when the sink cannot take it now (its stream is not writable, its queue is full): the worker
     *         keeps this and later batches for this subscription only, offers them again after
     *         {@link RelayedSubscription#writable()} or the next relay tick, and cuts the write off at the batch's
     *         deadline (the subscription is fenced)
     */
    boolean offer(Delivery item);

    /** The relay ended the subscription: {@code error} is a {@code resync} naming the offset to resume from. */
    void end(FelixError error);
}
