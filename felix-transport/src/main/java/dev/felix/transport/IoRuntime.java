package dev.felix.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The event-loop threads an endpoint runs on: epoll where the native transport loads (Linux),
 * NIO otherwise.
 *
 * <p><b>Threads and buffers.</b> Thread-safe; created and closed by its owner on the caller's thread. Touches no
 * {@code ByteBuf}s.
 *
 * <p>A UDP socket is served by the one event loop it is registered on; a server with more threads listens on a
 * socket per thread ({@link QuicServer}), a client's connection lives on one.
 */
public final class IoRuntime implements AutoCloseable {

    /** Messages read per wakeup on the UDP socket. Below 16 the receive path loses most of its speed. */
    static final int MAX_MESSAGES_PER_READ = 16;
    /**
     * Datagrams one {@code recvmmsg} call may read on epoll, each into its own slot of one buffer. As many as a
     * wakeup reads: a burst (a server's acknowledgements from many connections, a client's share of a fanout) costs
     * one system call instead of one per datagram. A socket whose datagrams come one per wakeup reads one slot
     * with {@code recvmsg} instead ({@link DatagramBurstReads}), which costs it less.
     */
    static final int DATAGRAMS_PER_RECEIVE_CALL = MAX_MESSAGES_PER_READ;
    /** UDP socket buffer size requested from the kernel. */
    static final int SOCKET_BUFFER_BYTES = 4 << 20;

    private final EventLoopGroup group;
    private final boolean epoll;

    private IoRuntime(EventLoopGroup group, boolean epoll) {
        this.group = group;
        this.epoll = epoll;
    }

    /** Creates a runtime with {@code threads} event loops (0 = one per core) named after {@code name}. */
    public static IoRuntime create(int threads, String name) {
        boolean epoll = Epoll.isAvailable() && !Boolean.getBoolean("felix.transport.nio");
        int n = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        DefaultThreadFactory factory = new DefaultThreadFactory(name, true);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(n, factory,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        return new IoRuntime(group, epoll);
    }

    public EventLoopGroup group() {
        return group;
    }

    /** Whether the native epoll transport is in use. */
    public boolean epoll() {
        return epoll;
    }

    /** A bootstrap for a UDP socket sized to receive {@code maxUdpPayload}-byte datagrams. */
    Bootstrap datagramBootstrap(int maxUdpPayload) {
        Class<? extends DatagramChannel> type = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
        int receiveBuffer = Math.max(2048, maxUdpPayload);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(type)
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES);
        if (!epoll) {
            // A fixed allocator resets maxMessagesPerRead to 1; set it back explicitly.
            return bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR,
                    new FixedRecvByteBufAllocator(receiveBuffer).maxMessagesPerRead(MAX_MESSAGES_PER_READ));
        }
        // recvmmsg: Netty uses it when the read buffer holds more than one slot of this size; DatagramBurstReads
        // asks for one slot until datagrams come in bursts. A datagram longer than its slot would be cut short, as
        // one longer than a single-datagram buffer would be: QUIC peers send no more than the maximum UDP payload
        // this endpoint announces, which is receiveBuffer at most.
        bootstrap.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, receiveBuffer);
        return bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR,
                new DatagramBurstReads(receiveBuffer, DATAGRAMS_PER_RECEIVE_CALL, MAX_MESSAGES_PER_READ));
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
