package dev.felix.server.protocol;

import dev.felix.cluster.relay.RelaySink;
import dev.felix.cluster.relay.RelayedSubscription;
import dev.felix.core.FelixError;
import dev.felix.core.QueueLimits;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.SubscriptionListener;
import java.util.ArrayDeque;

/**
 * The local queue of one subscription a relay feeds (a shard this node does not lead): the relay's worker offers
 * batches and gap notices, the subscription's {@link SubscriptionWriter} pulls them onto the event stream as it
 * does a core subscription's (or a {@link MuxSession} channel, which writes one frame for every channel that takes the
 * same batch instance), writing each batch's shared encoded-once frame.
 *
 * <p><b>Bounds.</b> Limited like a subscriber queue ({@link QueueLimits}): a full queue refuses the offer, which
 * the relay treats as a stalled write (offered again when the writer drains below half, cut off at the relay's
 * deadline, then fenced). An empty queue accepts any one batch, so an oversized batch still gets through.
 *
 * <p><b>Threads.</b> {@link #offer} from the relay's worker (under the relayed subscription's fence lock),
 * {@link #poll} from the writer's event loop, {@link #end} from the relay's closer or the upstream's event loop. The
 * listener is called outside this object's monitor.
 */
final class RelayedFeed implements EventFeed, RelaySink {

    private final long id;
    private final int shard;
    private final boolean durable;
    private final long incarnation;
    private final QueueLimits limits;
    private final Runnable onClose;
    private final ArrayDeque<Delivery> items = new ArrayDeque<>();
    private long events;
    private long bytes;
    private boolean wantSpace;
    private volatile SubscriptionListener listener;
    private volatile FelixError ended;
    private volatile RelayedSubscription relayed;
    /** Run once when a refused offer finds room again (a {@link LogReplay} waits for it); guarded by this. */
    private Runnable onSpace;

    RelayedFeed(long id, int shard, boolean durable, long incarnation, QueueLimits limits, Runnable onClose) {
        this.id = id;
        this.shard = shard;
        this.durable = durable;
        this.incarnation = incarnation;
        this.limits = limits;
        this.onClose = onClose;
    }

    /**
     * Runs {@code task} once, when the queue has drained to half after an offer was refused (at once if it has
     * room already). Any thread; the task runs on the thread that polled.
     */
    void whenSpace(Runnable task) {
        boolean now;
        synchronized (this) {
            now = !wantSpace;
            if (!now) {
                onSpace = task;
            }
        }
        if (now) {
            task.run();
        }
    }

    /** The relay's handle, once registered (the writer may close before). */
    void bind(RelayedSubscription subscription) {
        this.relayed = subscription;
    }

    // ---- RelaySink (relay worker)

    @Override
    public boolean offer(Delivery item) {
        boolean wake;
        synchronized (this) {
            if (!items.isEmpty() && item.eventCount() > 0 && (events + item.eventCount() > limits.events()
                    || bytes + item.payloadBytes() > limits.bytes())) {
                wantSpace = true;
                return false;
            }
            wake = items.isEmpty();
            items.addLast(item);
            events += item.eventCount();
            bytes += item.payloadBytes();
        }
        SubscriptionListener l = listener;
        if (wake && l != null) {
            l.onDeliveryReady();
        }
        return true;
    }

    /**
     * Ends the subscription. A {@code resync} names the first offset the subscriber has not received: the relay's
     * position counts what it handed to this queue, so what is still queued here is dropped (a stalled
     * subscriber's writer would not write it anyway) and the offset moves back to the first of it. What the writer
     * already took is on its way to the client, ahead of the error.
     */
    @Override
    public void end(FelixError error) {
        if (error.code() == dev.felix.core.ErrorCode.RESYNC) {
            long firstQueued = -1;
            synchronized (this) {
                for (Delivery d : items) {
                    if (d instanceof dev.felix.core.stream.EventBatch b) {
                        firstQueued = b.baseOffset();
                        break;
                    }
                    if (d instanceof dev.felix.core.stream.GapNotice g) {
                        firstQueued = g.from();
                        break;
                    }
                }
                items.clear();
                events = 0;
                bytes = 0;
            }
            if (firstQueued >= 0 && (error.offset() < 0 || firstQueued < error.offset())) {
                error = new FelixError(error.code(), error.message().replace("from offset " + error.offset(),
                        "from offset " + firstQueued), firstQueued);
            }
        }
        ended = error;
        SubscriptionListener l = listener;
        if (l != null) {
            l.onEnd(error);
        }
    }

    // ---- EventFeed (the writer)

    @Override
    public long id() {
        return id;
    }

    @Override
    public int shard() {
        return shard;
    }

    @Override
    public boolean durable() {
        return durable;
    }

    @Override
    public long incarnation() {
        return incarnation;
    }

    @Override
    public void listen(SubscriptionListener l) {
        this.listener = l;
        boolean ready;
        synchronized (this) {
            ready = !items.isEmpty();
        }
        if (ready) {
            l.onDeliveryReady();
        }
        FelixError e = ended;
        if (e != null) {
            l.onEnd(e);
        }
    }

    @Override
    public Delivery poll() {
        Delivery d;
        boolean signal;
        Runnable space = null;
        synchronized (this) {
            d = items.pollFirst();
            if (d != null) {
                events -= d.eventCount();
                bytes -= d.payloadBytes();
            }
            signal = wantSpace && events <= limits.events() / 2 && bytes <= limits.bytes() / 2;
            if (signal) {
                wantSpace = false;
                space = onSpace;
                onSpace = null;
            }
        }
        RelayedSubscription r = relayed;
        if (signal && r != null) {
            r.writable();
        }
        if (space != null) {
            space.run();
        }
        return d;
    }

    @Override
    public synchronized Delivery peekHeld() {
        return items.peekFirst(); // relayed batches hold arrays: nothing to hold
    }

    @Override
    public synchronized Delivery peek() {
        return items.peekFirst();
    }

    @Override
    public synchronized long queuedEvents() {
        return events;
    }

    @Override
    public void close() {
        RelayedSubscription r = relayed;
        if (r != null) {
            r.close();
        }
        onClose.run();
    }
}
