package dev.felix.wire;

/**
 * What the broker does when a subscriber's bounded queue is full ({@code subscribe.queue_policy},
 * extension, capability {@link Capabilities#GAP_NOTICES}). Every drop is reported with a {@code gap}.
 */
public enum QueuePolicy {
    /** Lossless: throttle the publisher. */
    BLOCK("block"),
    /** Drop the event being enqueued. */
    DROP_NEW("drop_new"),
    /** Drop the oldest queued event. */
    DROP_OLD("drop_old"),
    /** Durable streams only: detach the subscriber from live memory and feed it from the log. */
    CATCH_UP("catch_up");

    private final String wireName;

    QueuePolicy(String wireName) {
        this.wireName = wireName;
    }

    /** The JSON string. */
    public String wireName() {
        return wireName;
    }

    /** The policy for a JSON string, or {@code null} if unknown. */
    public static QueuePolicy fromWireName(String s) {
        for (QueuePolicy p : values()) {
            if (p.wireName.equals(s)) {
                return p;
            }
        }
        return null;
    }
}
