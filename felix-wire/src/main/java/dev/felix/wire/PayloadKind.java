package dev.felix.wire;

/**
 * The valid values of the frame {@code flags} field (wire v1's eight plus this project's multiplexed event batch, routed publish, publish result and binary watch changes), i.e. the payload layouts of wire v1, with
 * the direction each may travel in. See {@link FrameFlags} for the table.
 */
public enum PayloadKind {
    /** {@code 0x0000}: one JSON {@link Message}; both directions. */
    JSON(0x0000, null),
    /** {@code 0x0001}: {@link BinaryPublishBatch}, client to broker. */
    PUBLISH_BATCH(0x0001, Direction.CLIENT_TO_BROKER),
    /** {@code 0x0009}: {@link BinaryAckedPublishBatch}, client to broker. */
    ACKED_PUBLISH_BATCH(0x0009, Direction.CLIENT_TO_BROKER),
    /** {@code 0x0029}: {@link BinaryRoutedPublishBatch} (extension), client to broker. */
    ROUTED_PUBLISH_BATCH(0x0029, Direction.CLIENT_TO_BROKER),
    /** {@code 0x0030}: {@link BinaryPublishResult} (extension), broker to client. */
    PUBLISH_RESULT(0x0030, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0010}: {@link BinaryPublishAck}, broker to client. */
    PUBLISH_ACK(0x0010, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0002}: {@link BinaryEventBatch} without base offset, broker to client. */
    EVENT_BATCH(0x0002, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0022}: {@link BinaryEventBatch} with base offset, broker to client. */
    EVENT_BATCH_WITH_OFFSET(0x0022, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0004}: {@link BinarySharedEventBatch} without base offset, broker to client. */
    SHARED_EVENT_BATCH(0x0004, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0024}: {@link BinarySharedEventBatch} with base offset, broker to client. */
    SHARED_EVENT_BATCH_WITH_OFFSET(0x0024, Direction.BROKER_TO_CLIENT),
    /** {@code 0x8024}: {@link BinaryMuxEventBatch} (extension), broker to client. */
    MUX_EVENT_BATCH(0x8024, Direction.BROKER_TO_CLIENT),
    /** {@code 0x0026}: {@link BinaryWatchChanges} (extension), broker to client. */
    WATCH_CHANGES(0x0026, Direction.BROKER_TO_CLIENT);

    private final int flags;
    private final Direction direction;

    PayloadKind(int flags, Direction direction) {
        this.flags = flags;
        this.direction = direction;
    }

    /** The exact header flags value of this layout. */
    public int flags() {
        return flags;
    }

    /** Whether frames of this layout may travel in {@code d}. */
    public boolean allowedIn(Direction d) {
        return direction == null || direction == d;
    }

    /**
     * The layout selected by {@code flags}.
     *
     * @throws WireException {@link WireError#UNKNOWN_FLAGS} for bits outside {@link FrameFlags#KNOWN};
     *                       {@link WireError#BAD_FLAG_COMBINATION} for known bits in an invalid combination
     */
    public static PayloadKind of(int flags) throws WireException {
        if (!FrameFlags.isKnown(flags)) {
            throw new WireException(WireError.UNKNOWN_FLAGS,
                "unknown frame flag bits " + FrameFlags.describe(flags & ~FrameFlags.KNOWN)
                    + " in flags " + FrameFlags.describe(flags));
        }
        PayloadKind kind = lookup(flags);
        if (kind == null) {
            throw new WireException(WireError.BAD_FLAG_COMBINATION,
                "flags " + FrameFlags.describe(flags) + " are not a valid payload layout");
        }
        return kind;
    }

    /**
     * Like {@link #of(int)}, and also rejects a layout that may not travel in {@code direction}
     * (for example a publish batch arriving at a client) with {@link WireError#BAD_FLAG_COMBINATION}.
     */
    public static PayloadKind of(int flags, Direction direction) throws WireException {
        PayloadKind kind = of(flags);
        if (!kind.allowedIn(direction)) {
            throw new WireException(WireError.BAD_FLAG_COMBINATION,
                "flags " + FrameFlags.describe(flags) + " (" + kind + ") may not travel " + direction);
        }
        return kind;
    }

    static PayloadKind lookup(int flags) {
        switch (flags) {
            case 0x0000: return JSON;
            case 0x0001: return PUBLISH_BATCH;
            case 0x0009: return ACKED_PUBLISH_BATCH;
            case 0x0010: return PUBLISH_ACK;
            case 0x0029: return ROUTED_PUBLISH_BATCH;
            case 0x0030: return PUBLISH_RESULT;
            case 0x0002: return EVENT_BATCH;
            case 0x0022: return EVENT_BATCH_WITH_OFFSET;
            case 0x0004: return SHARED_EVENT_BATCH;
            case 0x0024: return SHARED_EVENT_BATCH_WITH_OFFSET;
            case 0x8024: return MUX_EVENT_BATCH;
            case 0x0026: return WATCH_CHANGES;
            default: return null;
        }
    }
}
