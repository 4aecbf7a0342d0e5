package dev.felix.demos.slowconsumer;

import dev.felix.client.ReceivePolicy;
import dev.felix.demos.common.UsageException;
import dev.felix.wire.QueuePolicy;
import java.util.ArrayList;
import java.util.List;

/** The arms {@code --policy} accepts. */
public final class IsolationPolicies {

    /** Drop at the stalled consumer's queues: nobody else slows down; the stalled consumer loses (and is told). */
    public static final IsolationPolicy DROP_NEW = new QueuePolicyArm("drop_new",
            "publishers never slow down; the slow consumer loses events, and is told which", false,
            QueuePolicy.DROP_NEW, ReceivePolicy.DROP_NEW, SlowConsumerPromises::lossConfined);

    /** Block at every queue: nothing lost, and one stalled consumer throttles everyone. */
    public static final IsolationPolicy BLOCK = new QueuePolicyArm("block",
            "nothing is lost; one slow consumer throttles everyone", false, QueuePolicy.BLOCK, ReceivePolicy.BLOCK,
            SlowConsumerPromises::nothingLost);

    /** A durable stream whose lagging subscriber is fed from the log: nothing lost, nobody slowed. */
    public static final IsolationPolicy CATCH_UP = new QueuePolicyArm("catch_up",
            "nothing is lost and nobody slows down; the slow consumer catches up from the log", true,
            QueuePolicy.CATCH_UP, ReceivePolicy.BLOCK, SlowConsumerPromises::nothingLostNobodySlowed);

    private IsolationPolicies() {
    }

    /** Every arm, in the order {@code --policy all} runs them. */
    public static List<IsolationPolicy> available() {
        return List.of(DROP_NEW, BLOCK, CATCH_UP);
    }

    /** A {@code --policy} value: an arm's name, {@code all}, or upstream's {@code both} (drop_new, block). */
    static List<IsolationPolicy> parse(String value) throws UsageException {
        switch (value) {
            case "all":
                return available();
            case "both":
                return List.of(DROP_NEW, BLOCK);
            default:
                for (IsolationPolicy p : available()) {
                    if (p.name().equals(value)) {
                        return List.of(p);
                    }
                }
        }
        List<String> names = new ArrayList<>();
        available().forEach(p -> names.add(p.name()));
        throw new UsageException("unknown policy " + value + "; expected " + String.join(", ", names)
                + ", both, or all");
    }
}
