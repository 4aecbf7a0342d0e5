package dev.felix.demos.divergence;

import dev.felix.client.ReceivePolicy;
import dev.felix.demos.common.UsageException;
import dev.felix.wire.QueuePolicy;
import java.util.ArrayList;
import java.util.List;

/** The modes {@code --mode} accepts. A new mode is added to {@link #available()}. */
public final class DivergenceModes {

    /** drop_new at every checkpoint of an ephemeral stream: loss happens, and every loss is announced. */
    public static final DivergenceMode LOSSY = new StreamMode("lossy",
            "lossy (drop_new at every checkpoint, ephemeral stream)", false, QueuePolicy.DROP_NEW,
            ReceivePolicy.DROP_NEW, "drop_new", DivergencePromises::lossAnnounced, List.of(
            "Under lossy the loss still happens, but it is never silent: every event a consumer",
            "missed was named to it, in order, by a gap notice (an offset range and a reason).",
            "A consumer that gets one knows exactly that its copy can no longer be trusted and can",
            "resynchronise, instead of serving stale state without knowing it."));

    /** block at every checkpoint: nothing is lost, and a stalled consumer may throttle the publisher. */
    public static final DivergenceMode LOSSLESS = new StreamMode("lossless",
            "lossless (block at every checkpoint)", false, QueuePolicy.BLOCK, ReceivePolicy.BLOCK, "block",
            DivergencePromises::converges, List.of(
            "Under lossless nothing is dropped, but only because the slowest consumer may throttle",
            "the publisher, and with it every other consumer: the trade-off the slow-consumer demo",
            "measures. Whether it actually throttled depends on how much the stall backed up."));

    /** A durable stream with catch_up subscribers: nothing is lost and nobody is slowed down. */
    public static final DivergenceMode DURABLE = new StreamMode("durable",
            "durable (log-backed stream, catch_up subscribers)", true, QueuePolicy.CATCH_UP, ReceivePolicy.BLOCK,
            "block", DivergencePromises::healsWithoutThrottling, List.of(
            "Under durable the stream is a log. The stalled consumer is detached from live delivery",
            "when its queue fills and is fed from the log once it reads again: it converges with",
            "nothing lost, and the publisher and the other consumers never wait for it."));

    /** A cache and CacheMirror consumers: a stalled mirror's watch is ended, it re-watches and converges. */
    public static final DivergenceMode WATCH = new WatchMode();

    private DivergenceModes() {
    }

    /** Every mode, in the order {@code --mode all} runs them. */
    public static List<DivergenceMode> available() {
        return List.of(LOSSY, LOSSLESS, DURABLE, WATCH);
    }

    /** A {@code --mode} value: a mode's name, {@code all}, or upstream's {@code both} (lossy, lossless). */
    static List<DivergenceMode> parse(String value) throws UsageException {
        switch (value) {
            case "all":
                return available();
            case "both":
                return List.of(LOSSY, LOSSLESS);
            default:
                for (DivergenceMode m : available()) {
                    if (m.name().equals(value)) {
                        return List.of(m);
                    }
                }
        }
        List<String> names = new ArrayList<>();
        available().forEach(m -> names.add(m.name()));
        throw new UsageException("unknown mode " + value + "; expected " + String.join(", ", names)
                + ", both, or all");
    }
}
