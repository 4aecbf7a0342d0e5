package dev.felix.demos.slowconsumer;

import java.util.ArrayList;
import java.util.List;

/**
 * The publisher's rate, sampled every 500 ms tick as {@code delta * 2} messages per second. Each
 * sample is tagged with the phase its interval lay in, so the baseline and degraded rates of one run
 * can be compared.
 */
final class RateSamples {

    /** One interval's rate and the phase it lay in. */
    record Sample(SlowConsumerPhase phase, long perSecond) {
    }

    /** Samples at each end left out of the achieved rate: start-up and shutdown (upstream: 2). */
    private static final int TRIM = 2;

    private final List<Sample> samples = new ArrayList<>();

    void add(SlowConsumerPhase phase, long perSecond) {
        samples.add(new Sample(phase, perSecond));
    }

    /** The last sample, or 0. */
    long last() {
        return samples.isEmpty() ? 0 : samples.get(samples.size() - 1).perSecond();
    }

    /** Upstream's achieved rate: mean of the samples without two at each end; the maximum if there are too few. */
    long achieved() {
        if (samples.size() > 2 * TRIM) {
            long sum = 0;
            for (Sample s : samples.subList(TRIM, samples.size() - TRIM)) {
                sum += s.perSecond();
            }
            return sum / (samples.size() - 2 * TRIM);
        }
        return samples.stream().mapToLong(Sample::perSecond).max().orElse(0);
    }

    /**
     * Mean rate over the intervals in {@code phase}, leaving out the first two of the run as
     * {@link #achieved()} does: the first holds the subscribers' head start, when nothing is
     * published, the second the publisher's first-use costs. Otherwise the baseline would be biased
     * low and a slowed publisher could still look "within 10% of baseline".
     */
    long during(SlowConsumerPhase phase) {
        long sum = 0;
        int n = 0;
        for (int i = TRIM; i < samples.size(); i++) {
            if (samples.get(i).phase() == phase) {
                sum += samples.get(i).perSecond();
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }
}
