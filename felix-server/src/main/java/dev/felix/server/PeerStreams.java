package dev.felix.server;

import dev.felix.cluster.peer.PeerEndpoint;
import dev.felix.cluster.peer.PeerMessage;
import dev.felix.cluster.peer.PeerStream;
import dev.felix.core.broker.Broker;

/**
 * Who answers a stream another node opened, chosen by its first message: a {@code relay_subscribe} is served by a
 * {@link RelayServing} (this node leads the shard the other node relays), anything else by replication.
 *
 * <p><b>Threads.</b> Peer event loops; {@link #broker} is set once the broker exists (a relay stream arriving
 * before is closed, and its node tries again).
 */
final class PeerStreams implements PeerEndpoint.Acceptor {

    private final PeerEndpoint.Acceptor replication;
    private volatile Broker broker;

    PeerStreams(PeerEndpoint.Acceptor replication) {
        this.replication = replication;
    }

    void broker(Broker value) {
        this.broker = value;
    }

    @Override
    public PeerStream.Listener accept(PeerStream accepted) {
        return new PeerStream.Listener() {
            private PeerStream.Listener delegate;

            @Override
            public void onMessage(PeerStream stream, PeerMessage message) {
                if (delegate == null) {
                    Broker b = broker;
                    boolean relay = message instanceof PeerMessage.RelaySubscribe
                            || message instanceof PeerMessage.RelayCatchUp;
                    if (relay && b == null) {
                        stream.close();
                        return;
                    }
                    delegate = relay ? new RelayServing(b)
                            : replication.accept(stream);
                }
                delegate.onMessage(stream, message);
            }

            @Override
            public void onClosed(PeerStream stream, Throwable cause) {
                if (delegate != null) {
                    delegate.onClosed(stream, cause);
                }
            }

            @Override
            public void onInputEnded(PeerStream stream) {
                if (delegate != null) {
                    delegate.onInputEnded(stream);
                }
            }

            @Override
            public void onWritable(PeerStream stream) {
                if (delegate != null) {
                    delegate.onWritable(stream);
                }
            }
        };
    }
}
