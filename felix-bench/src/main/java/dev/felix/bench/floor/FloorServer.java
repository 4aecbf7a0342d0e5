package dev.felix.bench.floor;

import dev.felix.transport.IoRuntime;
import dev.felix.transport.QuicServer;
import dev.felix.transport.TlsMaterial;
import dev.felix.transport.TransportConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The floor's server: passes the runs of whole frames a publisher's read brought on to every subscriber stream of
 * its topic, as retained duplicates of the received bytes (encode-once, no copy) with one flush per subscriber, then
 * acknowledges the confirmed messages and pings among them on the publisher's stream. Runs on the listener's event
 * loops, named {@value #THREADS}.
 */
final class FloorServer implements AutoCloseable {

    /** Name prefix of the server's threads (its CPU and allocation are the "broker"'s). */
    static final String THREADS = "quic-floor-server";

    private final IoRuntime runtime;
    private final QuicServer listener;

    private FloorServer(IoRuntime runtime, QuicServer listener) {
        this.runtime = runtime;
        this.listener = listener;
    }

    static FloorServer start(TransportConfig config, TlsMaterial tls) throws Exception {
        IoRuntime runtime = IoRuntime.create(Math.max(1, config.ioThreads()), THREADS);
        Map<String, List<Channel>> subscribers = new ConcurrentHashMap<>(); // by topic
        ChannelInitializer<Channel> streams = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel stream) {
                stream.pipeline().addLast(new FloorFrames.Runs(), new Stream(subscribers));
            }
        };
        try {
            QuicServer listener = QuicServer.bind(new InetSocketAddress("127.0.0.1", 0), config, tls, runtime,
                    new Connections(), streams);
            return new FloorServer(runtime, listener);
        } catch (Exception e) {
            runtime.close();
            throw e;
        }
    }

    InetSocketAddress address() {
        return listener.localAddress();
    }

    @Override
    public void close() {
        listener.close();
        runtime.close();
    }

    /** Added to every connection's pipeline; the connections themselves need nothing. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Connections extends ChannelInboundHandlerAdapter {
    }

    /** One stream's role, set by its first frame. */
    private static final class Stream extends ChannelInboundHandlerAdapter {
        private final Map<String, List<Channel>> subscribers;
        private List<Channel> audience; // a publisher's: its topic's subscribers
        private String subscribedTo;
        /** A publisher's runs read since the last read completed, and the acks they ask for. */
        private final java.util.ArrayList<ByteBuf> held = new java.util.ArrayList<>();
        private int acks;

        Stream(Map<String, List<Channel>> subscribers) {
            this.subscribers = subscribers;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf run = (ByteBuf) msg;
            ByteBuf rest = run;
            try {
                if (audience == null && subscribedTo == null) {
                    rest = open(ctx, run);
                }
                if (rest != null && audience != null) {
                    forward(ctx, rest);
                }
            } finally {
                run.release();
                if (rest != null && rest != run) {
                    rest.release();
                }
            }
        }

        /** Handles the opening frame; returns the rest of the run (retained) or null. */
        private ByteBuf open(ChannelHandlerContext ctx, ByteBuf run) {
            int at = run.readerIndex();
            byte kind = run.getByte(at);
            int length = FloorFrames.length(run, at);
            String topic = run.toString(at + FloorFrames.HEADER, length, java.nio.charset.StandardCharsets.UTF_8);
            List<Channel> topicSubscribers = subscribers.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>());
            if (kind == FloorFrames.SUBSCRIBE) {
                subscribedTo = topic;
                topicSubscribers.add(ctx.channel());
            } else if (kind == FloorFrames.PUBLISH) {
                audience = topicSubscribers;
            } else {
                ctx.close();
                return null;
            }
            ByteBuf ready = ctx.alloc().directBuffer(FloorFrames.HEADER);
            FloorFrames.writeEmpty(ready, FloorFrames.READY, 1);
            ctx.writeAndFlush(ready);
            int rest = at + FloorFrames.HEADER + length;
            return rest < run.writerIndex() ? run.retainedSlice(rest, run.writerIndex() - rest) : null;
        }

        /** Holds a run until the read completes, counting the acks it asks for. */
        private void forward(ChannelHandlerContext ctx, ByteBuf run) {
            for (int at = run.readerIndex(); at < run.writerIndex(); at += FloorFrames.HEADER
                    + FloorFrames.length(run, at)) {
                byte kind = run.getByte(at);
                if (kind == FloorFrames.CONFIRMED || kind == FloorFrames.PING) {
                    acks++;
                }
            }
            held.add(run.retain());
        }

        /**
         * Passes on everything the read brought, one flush per subscriber, then the acks: as a broker's drain does,
         * so that a batch that came in many packets leaves in as few as it can (a flush per packet read made the
         * first version of this forwarder three times slower than Felix at fanout 10).
         */
        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!held.isEmpty()) {
                for (Channel subscriber : audience) {
                    for (ByteBuf run : held) {
                        subscriber.write(run.retainedDuplicate(), subscriber.voidPromise());
                    }
                    subscriber.flush();
                }
                held.forEach(ByteBuf::release);
                held.clear();
            }
            if (acks > 0) {
                ByteBuf out = ctx.alloc().directBuffer(acks * FloorFrames.HEADER);
                FloorFrames.writeEmpty(out, FloorFrames.ACK, acks);
                acks = 0;
                ctx.writeAndFlush(out, ctx.voidPromise());
            }
            ctx.fireChannelReadComplete();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (subscribedTo != null) {
                subscribers.getOrDefault(subscribedTo, List.of()).remove(ctx.channel());
            }
            held.forEach(ByteBuf::release);
            held.clear();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a measuring tool: a bad stream just ends
        }
    }
}
