package dev.felix.server;

import dev.felix.core.broker.Broker;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.server.protocol.PayloadBlocks;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the payload blocks in use near the payload bytes held in them.
 *
 * <p><b>Why.</b> A publish's events are copied into the current block of the event loop that read it, beside the
 * events of every other stream that loop serves, and a block is reused only once every event in it is let go. When
 * a few events are kept long (the last ones of a quiet stream, which its memory ring keeps) between many let go soon
 * (a busy stream's, which its ring evicts within a second), each of the few keeps a whole 64 KiB block: the memory in
 * use grows with the busy stream's traffic, not with what the rings hold.
 *
 * <p><b>What.</b> Once a second (on {@link IdleMemory}'s timer), when the blocks in use exceed twice the payload bytes
 * held ({@code felix_pooled_payload_bytes}) by more than {@code pooled_payloads_slack_bytes}, it has every shard copy
 * the payloads its ring has kept for over {@link #SETTLE_AGE_SECONDS} s into arrays ({@link Broker#settleLent}),
 * which lets their blocks go. Busy streams' rings rarely keep anything that long, so what is copied is mostly the few
 * events that tied blocks up. One round at a time; a round that copied nothing waits {@link #BACKOFF_SECONDS} s before
 * the next, as that pressure is of events kept for less than a second.
 */
final class PayloadPressure {

    private static final Logger LOG = LoggerFactory.getLogger(PayloadPressure.class);
    /** How long a ring must have kept a batch for it to be copied out of its blocks. */
    static final long SETTLE_AGE_SECONDS = 1;
    /** The pause after a round that found nothing to copy. */
    static final long BACKOFF_SECONDS = 5;
    private static final long ROUND_TIMEOUT_SECONDS = 10;

    private final Broker broker;
    private final PayloadBlocks blocks;
    private final BrokerMetrics metrics;
    private final long slackBytes;
    /** A round is under way (timer thread sets it, the round's completion clears it). */
    private volatile boolean running;
    /** No round before this ({@link System#nanoTime()}); timer thread and round completion. */
    private volatile long idleUntil = System.nanoTime();

    PayloadPressure(Broker broker, PayloadBlocks blocks, BrokerMetrics metrics, long slackBytes) {
        this.broker = broker;
        this.blocks = blocks;
        this.metrics = metrics;
        this.slackBytes = slackBytes;
    }

    /** Starts a round if the blocks in use call for one. Timer thread. */
    void check() {
        long now = System.nanoTime();
        if (running || now - idleUntil < 0) {
            return;
        }
        long inUse = blocks.inUseBytes();
        long held = metrics.pooledPayloadBytes.sum();
        if (inUse - 2 * held <= slackBytes) {
            return;
        }
        running = true;
        metrics.payloadSettles.increment();
        broker.settleLent(now - TimeUnit.SECONDS.toNanos(SETTLE_AGE_SECONDS))
                .orTimeout(ROUND_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .whenComplete((copied, e) -> {
                    if (e != null) {
                        LOG.warn("copying long-kept payloads out of payload blocks did not finish", e);
                    } else {
                        metrics.payloadSettledBytes.add(copied);
                        LOG.debug("payload blocks in use {} KiB against {} KiB held: {} KiB kept over {} s copied"
                                + " into arrays", inUse >> 10, held >> 10, copied >> 10, SETTLE_AGE_SECONDS);
                        if (copied == 0) {
                            idleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(BACKOFF_SECONDS);
                        }
                    }
                    running = false;
                });
    }
}
