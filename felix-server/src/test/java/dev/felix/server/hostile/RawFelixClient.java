package dev.felix.server.hostile;

import dev.felix.server.FelixServer;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.QuicClient;
import dev.felix.transport.TransportConfig;

/**
 * A raw QUIC client for a {@link FelixServer}: TLS 1.3 with ALPN {@code felix/1} and the broker's
 * certificate trusted, but no Felix logic at all, so a test can send any bytes. One UDP socket and
 * one event-loop thread, shared by all of its {@link RawConnection}s. {@link #close()} drops the
 * socket without telling the broker anything (a peer that vanished).
 */
final class RawFelixClient implements AutoCloseable {

    private final QuicClient quic;

    private RawFelixClient(QuicClient quic) {
        this.quic = quic;
    }

    static RawFelixClient create(FelixServer server) {
        return create(server, TransportConfig.defaults());
    }

    static RawFelixClient create(FelixServer server, TransportConfig transport) {
        try {
            return new RawFelixClient(QuicClient.create(server.quicAddress(), "localhost", transport.withIoThreads(1),
                    ClientTrust.certificates(server.tls().chain()), null));
        } catch (Exception e) {
            throw new AssertionError("could not create a QUIC client: " + e, e);
        }
    }

    QuicClient quic() {
        return quic;
    }

    RawConnection connect() {
        return RawConnection.connect(this);
    }

    @Override
    public void close() {
        quic.close();
    }
}
