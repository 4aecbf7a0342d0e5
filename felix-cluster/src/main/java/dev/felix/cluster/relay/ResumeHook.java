package dev.felix.cluster.relay;

/**
 * Heals a gap-capable subscription of a durable stream that the relay fenced: the server supplies it and
 * replays the missed offsets from a log (this node's replica, or the leader's).
 *
 * <p><b>Contract.</b> {@link #resume} is called once per fence, on the relay thread that found the loss, after
 * the subscription's lock is released: it must return quickly and do the reading elsewhere. Until it calls
 * {@link RelayedSubscription#rejoin(long)} the relay delivers nothing to the subscription, so the hook owns the
 * sink: it offers the events from {@code fromOffset} on, in order, then rejoins at the offset after the last one
 * it delivered. A hook that cannot serve (retention took the offsets) ends the subscription itself or
 * announces the loss with its own gap notice before rejoining.
 */
@FunctionalInterface
public interface ResumeHook {

    /** Starts replaying {@code subscription} from {@code fromOffset}, the first offset it has not received. */
    void resume(RelayedSubscription subscription, long fromOffset);
}
