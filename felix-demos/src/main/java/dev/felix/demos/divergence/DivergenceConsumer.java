package dev.felix.demos.divergence;

import dev.felix.demos.common.OffsetCoverage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A stream consumer: applies every change it reads to its local copy and accounts every offset. A stalled
 * consumer keeps its subscription but reads nothing, like an application stuck in a slow handler.
 */
final class DivergenceConsumer implements Replica {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final long STALLED_NAP_MILLIS = 50;

    private final String name;
    private final LocalCopy copy;
    private final OffsetCoverage coverage;
    private final ChangeFeed feed;
    private final int keys;
    private final Thread thread;
    private volatile boolean stalled;
    private volatile boolean stop;
    private volatile long applied;
    private volatile String endedEarly;

    DivergenceConsumer(String name, ChangeFeed feed, int keys) {
        this.name = name;
        this.feed = feed;
        this.keys = keys;
        this.copy = new LocalCopy(keys);
        this.coverage = new OffsetCoverage(feed.startOffset());
        this.thread = new Thread(this::loop, "demo-" + name);
        thread.setDaemon(true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() {
        thread.start();
    }

    @Override
    public void setStalled(boolean s) {
        stalled = s;
    }

    @Override
    public boolean stalled() {
        return stalled;
    }

    @Override
    public long applied() {
        return applied;
    }

    @Override
    public List<Integer> wrongKeys(Authority.Snapshot truth) {
        return copy.wrongKeys(truth);
    }

    @Override
    public DivergenceTick.Row row(Authority.Snapshot truth) {
        return new DivergenceTick.Row(name, stalled, applied, copy.wrongKeys(truth).size(), coverage.gapNotices(),
                coverage.announcedMissed(), 0, 0);
    }

    @Override
    public boolean reached(long end) {
        return coverage.position() >= end || endedEarly != null;
    }

    @Override
    public String endedEarly() {
        return endedEarly;
    }

    @Override
    public void stop(Duration timeout) throws InterruptedException {
        stop = true;
        thread.join(timeout.toMillis());
        feed.close();
    }

    @Override
    public ConsumerOutcome outcome(List<Integer> wrong, boolean stalledMidRun, long end) {
        return new ConsumerOutcome(name, applied, wrong, stalledMidRun, endedEarly, coverage.against(end), null);
    }

    private void loop() {
        while (!stop) {
            if (stalled) {
                nap();
                continue;
            }
            FeedItem item;
            try {
                item = feed.next(POLL);
            } catch (ChangeFeed.FeedEndedException e) {
                if (!stop) {
                    endedEarly = e.getMessage();
                }
                return;
            }
            if (item instanceof FeedItem.Change c) {
                coverage.onEvent(c.offset());
                ChangePayload change = ChangePayload.decode(c.payload(), keys);
                if (change != null) {
                    copy.apply(change);
                    applied++;
                }
            } else if (item instanceof FeedItem.Missed m) {
                coverage.onGap(m.from(), m.to(), m.reason());
            }
        }
    }

    private static void nap() {
        try {
            TimeUnit.MILLISECONDS.sleep(STALLED_NAP_MILLIS); // the stall itself: holding on, reading nothing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
