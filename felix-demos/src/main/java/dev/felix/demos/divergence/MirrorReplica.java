package dev.felix.demos.divergence;

import dev.felix.client.CacheMirror;
import dev.felix.demos.common.OffsetCoverage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A cache mirror as a consumer: its local copy is the mirror's own, kept by the SDK from a watch.
 *
 * <p>Stalling pauses the mirror: it stops reading its watch stream, exactly what an application that stops
 * draining it does. QUIC flow control then stops the broker's writes, the watch's queue in the cache
 * fills, and the broker ends the watch ({@code watch_ended{resume_from}}) instead of slowing the writer.
 * Released, the mirror reads what was in flight, then the end, and re-watches from {@code resume_from} (or
 * from a fresh snapshot if the cache no longer holds that offset).
 *
 * <p>Offsets are accounted by a listener, which runs on the mirror's event loop (the coverage's single
 * writer): every change must arrive once and in order, or be replaced by a fresh snapshot.
 */
final class MirrorReplica implements Replica {

    private final String name;
    private final CacheMirror mirror;
    private final int keys;
    private final OffsetCoverage coverage;
    private volatile boolean stalled;

    /**
     * {@code mirror} has applied its first snapshot, and nothing is written before every consumer is ready
     * (the run's readiness barrier), so no change can slip in before the listener is attached.
     */
    MirrorReplica(String name, CacheMirror mirror, int keys) {
        this.name = name;
        this.mirror = mirror;
        this.keys = keys;
        OffsetCoverage offsets = new OffsetCoverage(mirror.appliedOffset());
        mirror.addListener(new CacheMirror.Listener() {
            @Override
            public void onChange(String key, byte[] value, long offset) {
                offsets.onEvent(offset);
            }

            @Override
            public void onReset(long offset) {
                offsets.onSnapshot(offset);
            }
        });
        this.coverage = offsets;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() {
        // Nothing to run: the SDK applies changes on the connection's event loop.
    }

    @Override
    public void setStalled(boolean s) {
        if (s == stalled) {
            return;
        }
        stalled = s;
        if (s) {
            mirror.pause();
        } else {
            mirror.resume();
        }
    }

    @Override
    public boolean stalled() {
        return stalled;
    }

    @Override
    public long applied() {
        return mirror.changesApplied();
    }

    @Override
    public List<Integer> wrongKeys(Authority.Snapshot truth) {
        List<Integer> wrong = new ArrayList<>();
        for (int k = 0; k < truth.written().length; k++) {
            if (truth.written()[k] && !holds(k, truth.values()[k])) {
                wrong.add(k);
            }
        }
        return wrong;
    }

    /** Whether the mirror's value for key {@code k} is the change that wrote {@code value}. */
    private boolean holds(int k, long value) {
        byte[] local = mirror.get(Keyspace.name(k)).orElse(null);
        ChangePayload c = local == null ? null : ChangePayload.decode(local, keys);
        return c != null && c.key() == k && c.value() == value;
    }

    @Override
    public DivergenceTick.Row row(Authority.Snapshot truth) {
        return new DivergenceTick.Row(name, stalled, applied(), wrongKeys(truth).size(), 0, 0, mirror.rewatches(),
                resnapshots());
    }

    @Override
    public boolean reached(long end) {
        return coverage.position() >= end || mirror.endCause() != null;
    }

    @Override
    public String endedEarly() {
        return mirror.endCause() == null ? null : "watch error: " + mirror.endCause().getMessage();
    }

    @Override
    public void stop(Duration timeout) {
        mirror.close();
    }

    @Override
    public ConsumerOutcome outcome(List<Integer> wrong, boolean stalledMidRun, long end) {
        return new ConsumerOutcome(name, applied(), wrong, stalledMidRun, endedEarly(), coverage.against(end),
                new WatchRecovery(mirror.rewatches(), resnapshots()));
    }

    /** Snapshots after the first: each one a re-watch whose resume offset the cache no longer held. */
    private long resnapshots() {
        return Math.max(0, mirror.snapshots() - 1);
    }
}
