package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * Ends the sending side of a QUIC stream cleanly (FIN), the way that survives packet loss.
 *
 * <p>Measured here (Netty 4.2.18 native QUIC, loopback, CPU hogs beside the test so the kernel drops
 * some UDP datagrams — {@code RcvbufErrors} in {@code /proc/net/snmp}): a FIN sent on its own after
 * the stream's data had already gone out ({@code writeAndFlush(data).addListener(SHUTDOWN_OUTPUT)},
 * or a later {@code shutdownOutput()}) never reached the peer for about one stream in 300 to 1,400 —
 * not after seconds, not after other traffic on the connection — although Netty reported it written.
 * quiche records an empty FIN write only as the stream's final offset, and a lost packet whose only
 * content was that FIN is not sent again once the data before it has been acknowledged; the stream
 * then never completes and its stream credit is never returned. A FIN carried in the same STREAM frame
 * as the last data (one {@link DefaultQuicStreamFrame} with the fin bit) is retransmitted with that
 * data: none was lost in 11,000 streams under the same load.
 *
 * <p>So: attach the FIN to the last data whenever there is last data; send a bare FIN only when the
 * data went out earlier and nothing is left to attach it to (and accept that loss can then leave the
 * stream open until the connection closes).
 */
public final class StreamEnds {

    private StreamEnds() {
    }

    /**
     * Writes {@code last} and FIN in one STREAM frame ({@link StreamWrites#writeLastOwned}). Takes ownership of
     * {@code last}, which must be the caller's alone (a frame encoded for this write).
     */
    public static ChannelFuture writeLast(QuicStreamChannel channel, ByteBuf last) {
        ChannelPromise written = channel.newPromise();
        StreamWrites.writeLastOwned(channel, last, written);
        channel.flush();
        return written;
    }

    /**
     * Sends a bare FIN after everything already written (queued behind writes that wait for flow
     * control, which {@code shutdownOutput()} would overtake), unless our side has already ended or
     * the stream is gone. Prefer {@link #writeLast} when there is a last message to send.
     */
    public static void finish(QuicStreamChannel channel) {
        if (channel.isActive() && !channel.isOutputShutdown()) {
            channel.writeAndFlush(new DefaultQuicStreamFrame(Unpooled.EMPTY_BUFFER, true), channel.voidPromise());
        }
    }
}
