package dev.felix.wire;

/**
 * Acknowledgement mode of a publish: JSON {@code "none" | "per_message" | "per_batch"}; in the
 * binary acked-publish prefix {@code 1 = per_message}, {@code 2 = per_batch} ({@code none} cannot be
 * expressed there: unacked binary traffic uses flags {@code 0x0001}).
 *
 * <p>Upstream quirk kept for compatibility: when {@code ack} is absent from a JSON publish the
 * broker treats it as acked. Both acked modes produce one ack per frame.
 */
public enum AckMode {
    /** Fire and forget: no reply. */
    NONE("none", 0),
    /** Acked; wire code 1. */
    PER_MESSAGE("per_message", 1),
    /** Acked; wire code 2. */
    PER_BATCH("per_batch", 2);

    private final String wireName;
    private final int code;

    AckMode(String wireName, int code) {
        this.wireName = wireName;
        this.code = code;
    }

    /** The JSON string. */
    public String wireName() {
        return wireName;
    }

    /** The binary prefix byte (1 or 2); 0 for {@link #NONE}, which has no binary form. */
    public int code() {
        return code;
    }

    /** The mode for a JSON string, or {@code null} if unknown. */
    public static AckMode fromWireName(String s) {
        for (AckMode m : values()) {
            if (m.wireName.equals(s)) {
                return m;
            }
        }
        return null;
    }
}
