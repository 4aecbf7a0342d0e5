package dev.felix.transport;

import io.netty.handler.codec.quic.QuicCodecBuilder;
import java.util.concurrent.TimeUnit;

/** Applies a {@link TransportConfig} to a client or server codec builder; both sides need it. */
final class QuicCodecs {
    private QuicCodecs() {
    }

    /**
     * DATAGRAM frames (RFC 9221) each side queues, received and to send. Felix sends them only as keep-alives
     * (one tiny datagram is one ack-eliciting packet: the peer's ACK alone keeps both idle timers running), so
     * a short queue is plenty; a full one drops the newest, which a keep-alive can afford.
     */
    static final int DATAGRAM_QUEUE = 16;

    static <B extends QuicCodecBuilder<B>> B apply(B builder, TransportConfig config, int udpPayload) {
        return builder
                .initialMaxData(config.connectionWindowBytes())
                .initialMaxStreamDataBidirectionalLocal(config.streamWindowBytes())
                .initialMaxStreamDataBidirectionalRemote(config.streamWindowBytes())
                .initialMaxStreamDataUnidirectional(config.streamWindowBytes())
                .initialMaxStreamsBidirectional(config.maxBidiStreams())
                .initialMaxStreamsUnidirectional(config.maxUniStreams())
                .maxIdleTimeout(config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .maxRecvUdpPayloadSize(udpPayload)
                .maxSendUdpPayloadSize(udpPayload)
                // Acknowledge promptly: a request/response protocol on loopback is latency-bound.
                .maxAckDelay(1, TimeUnit.MILLISECONDS)
                .datagram(DATAGRAM_QUEUE, DATAGRAM_QUEUE);
    }
}
