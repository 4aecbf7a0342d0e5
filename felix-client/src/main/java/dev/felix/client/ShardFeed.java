package dev.felix.client;

import dev.felix.wire.MuxEventBatchView;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What arrives for one shard of one subscription, into the subscription's {@link ReceiveQueue}: events in
 * offset order, gap notices, and — when the queue's policy drops — the range this client dropped, reported as
 * a {@code client_queue_overflow} gap before the next item. Offsets that jump without a notice (an older
 * broker) are reported as an {@code unannounced} gap.
 *
 * <p><b>Threads and buffers.</b> Confined to the event loop of the stream(s) that feed it. It receives decoded
 * events, or a view of a frame its session owns and releases after {@link #deliverInPlace}; never a
 * {@code ByteBuf}.
 */
final class ShardFeed {

    private final Subscription subscription;
    private final int shard;
    /** Next offset expected from the broker, or -1 before the first offset is known. */
    private long expected = -1;
    /** DROP_NEW: range dropped locally and not yet reported. */
    private long pendingGapFrom = -1;
    private long pendingGapTo = -1;

    ShardFeed(Subscription subscription, int shard) {
        this.subscription = subscription;
        this.shard = shard;
    }

    int shard() {
        return shard;
    }

    /**
     * Events from {@code baseOffset} (null: the broker sent no offsets). Returns false when the queue is full
     * under {@link ReceivePolicy#BLOCK} and the producer should stop reading until it is resumed.
     */
    boolean deliver(Long baseOffset, List<byte[]> payloads) {
        long base = baseOffset != null ? baseOffset : -1;
        if (base >= 0 && expected >= 0 && base > expected) {
            gap(expected, base - 1, "unannounced"); // offsets jumped without a gap notice (an older broker)
        }
        ReceiveQueue queue = subscription.queue();
        boolean room = true;
        for (int i = 0; i < payloads.size(); i++) {
            byte[] payload = payloads.get(i);
            long offset = base >= 0 ? base + i : -1;
            if (queue.policy() != ReceivePolicy.BLOCK && !queue.hasRoom(payload.length)) {
                if (queue.policy() == ReceivePolicy.DROP_OLD) {
                    subscription.countLocalDrops(queue.evictOldest(payload.length, subscription.stream()));
                } else {
                    localDrop(offset);
                    continue;
                }
            }
            flushLocalGap();
            if (!queue.add(new Event(subscription.stream(), shard, offset, payload))) {
                room = false;
            }
            subscription.countEvent();
        }
        if (base >= 0) {
            expected = base + payloads.size();
        }
        return room || queue.policy() != ReceivePolicy.BLOCK;
    }

    /**
     * Hands the events of a frame straight to the subscription's {@link EventViewHandler}, read in place, when
     * nothing comes before them in order: no gap to report first, nothing waiting in the queue, no other turn of
     * the handler running. Returns false, having done nothing, when they must go through {@link #deliver} instead
     * (as copies). The frame must stay alive until this returns.
     */
    boolean deliverInPlace(MuxEventBatchView batch, EventView view) {
        HandlerDispatcher.InPlaceTurn turn = subscription.inPlace();
        long base = batch.baseOffset();
        if (turn == null || pendingGapFrom >= 0 || expected >= 0 && base > expected || !turn.enter()) {
            return false;
        }
        int n = batch.eventCount();
        int handed = 0;
        try {
            ByteBuffer buffer = batch.buffer();
            while (handed < n && !subscription.ended()) { // closed meanwhile (by the handler too): no more
                view.set(subscription.stream(), shard, base + handed, buffer, batch.payloadStart(handed),
                        batch.payloadLength(handed));
                handed++;
                if (!turn.handle(view)) {
                    break; // the handler threw: the subscription has ended
                }
            }
        } finally {
            subscription.countEventsReadInPlace(handed);
            turn.leave();
        }
        expected = base + n;
        return true;
    }

    /** A gap notice from the broker (or the client's own unannounced one). */
    void gap(long from, long to, String reason) {
        flushLocalGap();
        boolean unbounded = to == Long.MAX_VALUE || to < 0; // incarnation: the rest of an earlier numbering
        subscription.countGap(unbounded ? -1 : to - from + 1);
        subscription.queue().add(new Gap(subscription.stream(), shard, from, to, reason));
        expected = unbounded ? -1 : to + 1;
    }

    /** Reports a locally dropped range (DROP_NEW) before the next item. */
    void flushLocalGap() {
        if (pendingGapFrom >= 0) {
            long from = pendingGapFrom;
            long to = pendingGapTo;
            pendingGapFrom = -1;
            subscription.countGap(to - from + 1);
            subscription.queue().add(new Gap(subscription.stream(), shard, from, to, "client_queue_overflow"));
        }
    }

    private void localDrop(long offset) {
        subscription.countLocalDrops(1);
        if (offset < 0) {
            return; // without offsets a range cannot be named; the drop is still counted
        }
        if (pendingGapFrom < 0) {
            pendingGapFrom = offset;
        }
        pendingGapTo = offset;
    }
}
