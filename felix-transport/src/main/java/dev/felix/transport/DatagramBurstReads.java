package dev.felix.transport;

import io.netty.channel.ChannelConfig;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * How much a UDP socket's read asks for: one datagram's slot while datagrams arrive one per wakeup, and
 * {@code maxSlots} slots, read with one {@code recvmmsg}, once a wakeup found more than one.
 *
 * <p><b>Why not always {@code maxSlots}.</b> A socket that gets one datagram per wakeup (a publisher waiting for its
 * acknowledgement, the subscriber of a quiet stream) gains nothing from a multi-slot read and pays for it on every
 * wakeup: measured on a 2-vCPU VM, 16-slot reads made the publisher's confirm 9–18% slower and the CPU per delivery
 * higher in the closed-loop latency benchmark than one-slot reads, and a 4-slot read (a 16 KiB buffer, inside the
 * allocator's pooled size classes) still cost most of that, so it is the multi-message read itself more than its
 * 64 KiB buffer. A burst (many connections' acknowledgements at a broker, a client's share of a fanout on a shared
 * socket) is what {@code recvmmsg} is for: there 16-slot reads gave 11–21% more throughput. So after a wakeup that
 * read two datagrams or more, reads take every slot until {@value #QUIET_WAKEUPS} wakeups in a row have read one
 * datagram or none (docs/benchmarks.md, "recvmmsg at one datagram per wakeup").
 *
 * <p>Netty's own adaptive allocator sizes by bytes, not datagrams: a burst of small acknowledgements never reaches
 * its next size, so it would never read them with one call.
 *
 * <p><b>Threads and buffers.</b> One handle per socket, used only on the socket's event loop. Allocates the read
 * buffer that Netty's datagram channel releases.
 */
final class DatagramBurstReads extends DefaultMaxMessagesRecvByteBufAllocator {

    /** Wakeups of at most one datagram after which reads go back to one slot. */
    static final int QUIET_WAKEUPS = 8;

    private final int slot;
    private final int maxSlots;

    /**
     * @param slot     bytes per datagram (the socket's {@code MAX_DATAGRAM_PAYLOAD_SIZE})
     * @param maxSlots datagrams one burst read may take
     */
    DatagramBurstReads(int slot, int maxSlots, int maxMessagesPerRead) {
        super(maxMessagesPerRead);
        if (slot <= 0 || maxSlots <= 0) {
            throw new IllegalArgumentException("slot and maxSlots must be positive, were " + slot + " and " + maxSlots);
        }
        this.slot = slot;
        this.maxSlots = maxSlots;
    }

    @Override
    public Handle newHandle() {
        return new Sizer();
    }

    /** One socket's sizing: the slots of its next read, from the datagrams its last wakeups read. */
    final class Sizer extends MaxMessageHandle {
        private int slots = 1;
        private int datagrams;
        private int quiet;

        @Override
        public void reset(ChannelConfig config) {
            super.reset(config);
            datagrams = 0;
        }

        @Override
        public int guess() {
            return slots * slot;
        }

        @Override
        public void lastBytesRead(int bytes) {
            super.lastBytesRead(bytes);
            if (bytes > 0) {
                // A multi-slot read reports slots filled times the slot size; a one-slot read, the datagram's length.
                datagrams += attemptedBytesRead() > slot ? bytes / slot : 1;
            }
        }

        @Override
        public void readComplete() {
            super.readComplete();
            if (datagrams > 1) {
                slots = maxSlots;
                quiet = 0;
            } else if (slots > 1 && ++quiet >= QUIET_WAKEUPS) {
                slots = 1;
                quiet = 0;
            }
        }

        /** Slots the next read takes (for tests). */
        int slots() {
            return slots;
        }
    }
}
