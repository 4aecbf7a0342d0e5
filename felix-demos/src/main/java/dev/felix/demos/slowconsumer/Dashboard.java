package dev.felix.demos.slowconsumer;

import dev.felix.client.Event;
import dev.felix.client.FelixClientException;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.Subscription;
import dev.felix.demos.common.OffsetCoverage;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One dashboard subscriber: counts what it receives, counts sequence numbers that never arrived
 * (upstream's "lost"), records end-to-end latency, and accounts offsets and gap notices. A stalled
 * dashboard keeps its subscription but stops draining it.
 */
final class Dashboard {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final long STALLED_NAP_MILLIS = 50;
    private static final long NONE = -1;

    final String name;
    final LatencyWindow latencies = new LatencyWindow();
    final OffsetCoverage coverage;
    /** Latency in µs by the phase each message was published in; read after the thread stopped. */
    final Histogram[] latencyByPublishPhase = new Histogram[SlowConsumerPhase.values().length];
    private final PublishPhases phases;
    private final Subscription subscription;
    private final Thread thread;
    private volatile boolean stalled;
    private volatile boolean stop;
    private volatile long received;
    private volatile long lost;
    private volatile String endedEarly;
    private long lastSeq = NONE;

    Dashboard(String name, Subscription subscription, long startOffset, PublishPhases phases) {
        this.name = name;
        this.phases = phases;
        for (int i = 0; i < latencyByPublishPhase.length; i++) {
            latencyByPublishPhase[i] = PublishPhases.newHistogram();
        }
        this.subscription = subscription;
        this.coverage = new OffsetCoverage(startOffset);
        this.thread = new Thread(this::loop, "demo-" + name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void setStalled(boolean s) {
        stalled = s;
    }

    boolean stalled() {
        return stalled;
    }

    long received() {
        return received;
    }

    /** Sequence numbers skipped between two received messages. */
    long lost() {
        return lost;
    }

    String endedEarly() {
        return endedEarly;
    }

    /** Events the SDK dropped at this subscription's own receive queue. */
    long locallyDropped() {
        return subscription.locallyDropped();
    }

    void stop(Duration timeout) throws InterruptedException {
        stop = true;
        thread.join(timeout.toMillis());
        subscription.close();
    }

    private void loop() {
        while (!stop) {
            if (stalled) {
                nap();
                continue;
            }
            Item item;
            try {
                item = subscription.next(POLL);
            } catch (FelixClientException e) {
                if (!stop) {
                    endedEarly = e.getMessage();
                }
                return;
            }
            if (item instanceof Event e) {
                onEvent(e);
            } else if (item instanceof Gap g) {
                coverage.onGap(g.from(), g.to(), g.reason());
            }
        }
    }

    private void onEvent(Event e) {
        long now = TelemetryPayload.now();
        coverage.onEvent(e.offset());
        TelemetryPayload t = TelemetryPayload.decode(e.payload());
        if (t == null) {
            return;
        }
        if (lastSeq != NONE && t.seq() > lastSeq + 1) {
            lost += t.seq() - lastSeq - 1;
        }
        lastSeq = t.seq();
        received++;
        long latency = Math.max(0, now - t.publishNanos());
        latencies.add(latency);
        latencyByPublishPhase[phases.of(t.publishNanos()).ordinal()].recordValue(
                Math.min(latency / 1000, 3_600_000_000L));
    }

    private static void nap() {
        try {
            TimeUnit.MILLISECONDS.sleep(STALLED_NAP_MILLIS); // the stall itself: holding on, draining nothing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
