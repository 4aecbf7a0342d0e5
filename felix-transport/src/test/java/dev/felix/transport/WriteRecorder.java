package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The head of an {@code EmbeddedChannel}'s pipeline as a QUIC stream sees it: each buffer written (a packet or more
 * each on a real stream) recorded as ASCII and released, and flushes counted. While {@link #failing}, writes fail as
 * a reset stream's do.
 */
final class WriteRecorder extends ChannelOutboundHandlerAdapter {

    final List<String> writes = new ArrayList<>();
    /** For each write, the buffers it is made of (a composite's parts). */
    final List<Integer> parts = new ArrayList<>();
    /** For each write, the allocator of its buffer (null for a heap buffer: QUIC would copy it). */
    final List<io.netty.buffer.ByteBufAllocator> directFrom = new ArrayList<>();
    int flushes;
    boolean failing;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf b = (ByteBuf) msg;
        writes.add(b.toString(StandardCharsets.US_ASCII));
        parts.add(b instanceof io.netty.buffer.CompositeByteBuf c ? c.numComponents() : 1);
        directFrom.add(b.isDirect() ? b.alloc() : null);
        b.release();
        if (failing) {
            promise.tryFailure(new IOException("stream reset"));
        } else {
            promise.trySuccess();
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        flushes++;
    }

    /** An ASCII frame to write. */
    static ByteBuf frame(String s) {
        return io.netty.buffer.Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
