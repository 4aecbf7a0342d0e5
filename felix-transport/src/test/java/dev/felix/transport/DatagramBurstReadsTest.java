package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.EpollChannelOption;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DatagramBurstReads}: one slot while datagrams come one per wakeup, every slot (one {@code recvmmsg}) from
 * the wakeup after a burst, back to one slot after {@value DatagramBurstReads#QUIET_WAKEUPS} quiet wakeups. Driven
 * the way Netty's epoll datagram channel drives it: per read, the bytes attempted and the bytes read (a multi-slot
 * read reports slots filled times the slot size), then the wakeup's end.
 */
class DatagramBurstReadsTest {

    private static final int SLOT = 4096;
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final DatagramBurstReads.Sizer sizer =
            (DatagramBurstReads.Sizer) new DatagramBurstReads(SLOT, 16, 16).newHandle();

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void oneDatagramPerWakeupKeepsOneSlot() {
        assertThat(sizer.guess()).isEqualTo(SLOT);
        for (int i = 0; i < 20; i++) {
            wakeup(300); // one datagram read with recvmsg, then nothing
        }
        assertThat(sizer.slots()).isEqualTo(1);
        assertThat(sizer.guess()).isEqualTo(SLOT);
    }

    @Test
    void aBurstTakesEverySlotFromTheNextWakeup_untilEnoughQuietWakeups() {
        wakeup(60, 60, 60); // three small acknowledgements, one recvmsg each: small in bytes, a burst in datagrams
        assertThat(sizer.slots()).isEqualTo(16);
        assertThat(sizer.guess()).isEqualTo(16 * SLOT);

        multiSlotWakeup(5); // one recvmmsg read five
        assertThat(sizer.slots()).isEqualTo(16);
        for (int i = 1; i < DatagramBurstReads.QUIET_WAKEUPS; i++) {
            multiSlotWakeup(i % 2); // one datagram or none
            assertThat(sizer.slots()).as("quiet wakeup %d", i).isEqualTo(16);
        }
        multiSlotWakeup(1);
        assertThat(sizer.slots()).as("after %d quiet wakeups", DatagramBurstReads.QUIET_WAKEUPS).isEqualTo(1);
    }

    @Test
    void aBurstBetweenQuietWakeupsStartsTheCountAgain() {
        wakeup(60, 60);
        for (int i = 1; i < DatagramBurstReads.QUIET_WAKEUPS; i++) {
            multiSlotWakeup(1);
        }
        multiSlotWakeup(2);
        for (int i = 1; i < DatagramBurstReads.QUIET_WAKEUPS; i++) {
            multiSlotWakeup(1);
        }
        assertThat(sizer.slots()).isEqualTo(16);
    }

    @Test
    void everyEpollSocketOfARuntimeReadsThroughIt_withItsSlotAsTheDatagramSize() {
        IoRuntime runtime = IoRuntime.create(1, "burst-reads-test");
        try {
            assertThat(runtime.epoll()).as("the suite runs on Linux with epoll").isTrue();
            Channel socket = runtime.datagramBootstrap(1200).handler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).syncUninterruptibly().channel();
            try {
                io.netty.channel.RecvByteBufAllocator reads = socket.config().getRecvByteBufAllocator();
                assertThat(reads).isInstanceOf(DatagramBurstReads.class);
                assertThat((int) socket.config().getOption(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE))
                        .as("one slot: at least 2 KiB, and the 1,200-byte payload fits").isEqualTo(2048);
            } finally {
                socket.close().syncUninterruptibly();
            }
        } finally {
            runtime.close();
        }
    }

    @Test
    void refusesNonPositiveSizes() {
        assertThatThrownBy(() -> new DatagramBurstReads(0, 16, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DatagramBurstReads(SLOT, 0, 16)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A wakeup of one-slot reads: one per datagram of these lengths, then one that finds nothing. */
    private void wakeup(int... lengths) {
        sizer.reset(channel.config());
        for (int length : lengths) {
            sizer.attemptedBytesRead(SLOT);
            sizer.lastBytesRead(length);
        }
        sizer.attemptedBytesRead(SLOT);
        sizer.lastBytesRead(-1);
        sizer.readComplete();
    }

    /** A wakeup of one multi-slot read that filled {@code datagrams} slots, then one that finds nothing. */
    private void multiSlotWakeup(int datagrams) {
        sizer.reset(channel.config());
        if (datagrams > 0) {
            sizer.attemptedBytesRead(16 * SLOT);
            sizer.lastBytesRead(datagrams * SLOT);
        }
        sizer.attemptedBytesRead(16 * SLOT);
        sizer.lastBytesRead(-1);
        sizer.readComplete();
    }
}
