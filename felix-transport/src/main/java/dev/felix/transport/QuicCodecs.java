package dev.felix.transport;

import io.netty.handler.codec.quic.QuicCodecBuilder;
import java.util.concurrent.TimeUnit;

/** Applies a {@link TransportConfig} to a client or server codec builder; both sides need it. */
final class QuicCodecs {
    private QuicCodecs() {
    }

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
                .maxAckDelay(1, TimeUnit.MILLISECONDS);
    }
}
