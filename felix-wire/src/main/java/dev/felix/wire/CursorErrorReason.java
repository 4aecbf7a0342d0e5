package dev.felix.wire;

/** Why a {@code subscribe} with a {@code start} could not be served ({@code subscribe_cursor_error.reason}). */
public enum CursorErrorReason {
    /** The requested offset is below the oldest retained one; {@code available} is the oldest. */
    TOO_OLD("too_old"),
    /** The requested offset is past the tail; {@code available} is the tail. */
    IN_FUTURE("in_future");

    private final String wireName;

    CursorErrorReason(String wireName) {
        this.wireName = wireName;
    }

    /** The JSON string. */
    public String wireName() {
        return wireName;
    }

    /** The reason for a JSON string, or {@code null} if unknown. */
    public static CursorErrorReason fromWireName(String s) {
        for (CursorErrorReason r : values()) {
            if (r.wireName.equals(s)) {
                return r;
            }
        }
        return null;
    }
}
