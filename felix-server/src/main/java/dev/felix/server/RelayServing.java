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
import dev.felix.core.stream.Stream;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.core.stream.SubscriptionListener;

/**
 * The leader's side of one relay stream another node opened ({@link PeerMessage.RelaySubscribe}): one core
 * subscription to the shard, from its tail, whose batches go out as {@link PeerMessage.RelayEvents} while the stream
 * is writable. The subscription's queue policy is the stream's default, so when the relaying node falls behind the
 * leader skips (a durable shard catches up from its log instead); the relaying node sees the skip as a hole in the
 * offsets and fences its subscribers. Gap notices are not sent: the offsets say it.
 *
 * <p><b>Threads.</b> Everything runs on the peer stream's event loop; the core listener only schedules onto it.
 */
final class RelayServing implements PeerStream.Listener, SubscriptionListener {

    private final Broker broker;
    private PeerStream stream;
    private Subscription subscription;
    private boolean closed;

    RelayServing(Broker broker) {
        this.broker = broker;
    }

    @Override
    public void onMessage(PeerStream s, PeerMessage message) {
        if (!(message instanceof PeerMessage.RelaySubscribe r) || stream != null) {
            s.close(); // a relay stream carries one relay_subscribe, then only the leader speaks
            return;
        }
        stream = s;
        Stream target;
        try {
            StreamName name = StreamName.parse(r.stream());
            target = broker.stream(name);
            if (r.shard() >= target.shardCount()) {
                refuse(PeerMessage.Refusal.UNKNOWN, "stream " + name + " has no shard " + r.shard());
                return;
            }
            Leadership l = broker.router().shard(name, r.shard());
            if (!(l instanceof Leadership.Here)) {
                refuse(PeerMessage.Refusal.NOT_LEADER, "this node does not lead " + name + " shard " + r.shard());
                return;
            }
        } catch (FelixException | IllegalArgumentException e) {
            refuse(PeerMessage.Refusal.UNKNOWN, e.getMessage());
            return;
        }
        target.shard(r.shard()).subscribe(new SubscribeRequest(StartPosition.LATEST, null, null, 0))
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
                stream.send(new PeerMessage.RelayEvents(b.baseOffset(), b.payloads().toArray(new byte[0][])));
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
