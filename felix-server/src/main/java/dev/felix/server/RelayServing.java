package dev.felix.server;

import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.routing.Leadership;
import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;

/**
 * The leader's side of one relay stream another node opened: one core subscription to the shard, from its tail
 * ({@link PeerMessage.RelaySubscribe}) or from an offset ({@link PeerMessage.RelayCatchUp}, a replay for one
 * subscriber there), whose batches go out as {@link PeerMessage.RelayEvents} while the stream is writable. The subscription's queue policy is the stream's default, so when the relaying node falls behind the
 * leader skips (a durable shard catches up from its log instead); the relaying node sees the skip as a hole in the
 * offsets and fences its subscribers. On a relay stream gap notices are not sent (the offsets say it); on a
 * catch-up stream they go out as {@link PeerMessage.RelayGap}, since the subscriber is to be told why.
 *
 * <p><b>Threads.</b> Everything runs on the peer stream's event loop; the core listener only schedules onto it.
 */
final class RelayServing implements PeerStream.Listener, SubscriptionListener {

    private final Broker broker;
    private PeerStream stream;
    private Subscription subscription;
    private boolean closed;
    private boolean catchUp;

    RelayServing(Broker broker) {
        this.broker = broker;
    }

    @Override
    public void onMessage(PeerStream s, PeerMessage message) {
        String streamName;
        int shard;
        StartPosition start;
        if (message instanceof PeerMessage.RelaySubscribe r && stream == null) {
            streamName = r.stream();
            shard = r.shard();
            start = StartPosition.LATEST;
        } else if (message instanceof PeerMessage.RelayCatchUp c && stream == null) {
            streamName = c.stream();
            shard = c.shard();
            start = c.from() == PeerMessage.RelayCatchUp.EARLIEST ? StartPosition.EARLIEST : StartPosition.at(c.from());
            catchUp = true;
        } else {
            s.close(); // a relay stream carries one relay_subscribe (or relay_catch_up), then only the leader speaks
            return;
        }
        stream = s;
        Stream target;
        try {
            StreamName name = StreamName.parse(streamName);
            target = broker.stream(name);
            if (shard >= target.shardCount()) {
                refuse(PeerMessage.Refusal.UNKNOWN, "stream " + name + " has no shard " + shard);
                return;
            }
            Leadership l = broker.router().shard(name, shard);
            if (!(l instanceof Leadership.Here)) {
                refuse(PeerMessage.Refusal.NOT_LEADER, "this node does not lead " + name + " shard " + shard);
                return;
            }
        } catch (FelixException | IllegalArgumentException e) {
            refuse(PeerMessage.Refusal.UNKNOWN, e.getMessage());
            return;
        }
        target.shard(shard).subscribe(new SubscribeRequest(start, null, null, 0))
                .whenComplete((sub, err) -> s.execute(() -> started(sub, err)));
    }

    private void started(Subscription sub, Throwable err) {
        if (err != null) {
            refuse(PeerMessage.Refusal.FAILED, String.valueOf(err.getMessage()));
            return;
        }
        if (closed) {
            sub.close();
            return;
        }
        subscription = sub;
        stream.send(new PeerMessage.RelayStarted(sub.startOffset(), sub.incarnation()));
        sub.listen(this);
    }

    private void refuse(PeerMessage.Refusal code, String why) {
        stream.send(new PeerMessage.Refused(code, -1, -1, why));
        stream.close();
    }

    private void drain() {
        Subscription sub = subscription;
        if (sub == null || closed) {
            return;
        }
        while (stream.isWritable()) {
            Delivery d = sub.poll();
            if (d == null) {
                return;
            }
            if (d instanceof EventBatch b) {
                try {
                    stream.send(new PeerMessage.RelayEvents(b.baseOffset(), b.payloads().toArray(new byte[0][])));
                } finally {
                    b.releaseShare(); // taken off the queue: its share was ours (payloads() copied what was lent)
                }
            } else if (catchUp && d instanceof GapNotice g) {
                stream.send(new PeerMessage.RelayGap(g.from(), g.to(), g.reason().wireName()));
            }
        }
    }

    @Override
    public void onDeliveryReady() {
        stream.execute(this::drain);
    }

    @Override
    public void onEnd(FelixError error) {
        stream.execute(() -> {
            drain();
            stream.close(); // the relaying node ends its subscribers; they find the new leader
        });
    }

    @Override
    public void onWritable(PeerStream s) {
        drain();
    }

    @Override
    public void onInputEnded(PeerStream s) {
        s.close(); // the relaying node's last subscriber left
    }

    @Override
    public void onClosed(PeerStream s, Throwable cause) {
        closed = true;
        if (subscription != null) {
            subscription.close();
        }
    }
}
