package dev.felix.wire;

/**
 * The {@code flags} field of the {@linkplain FrameHeader frame header}: which payload layout follows.
 *
 * <p>{@code 0} means the payload is one JSON {@link Message}. Any other value selects a binary layout;
 * only the eight combinations listed in {@link PayloadKind} are valid, each in one direction:
 *
 * <pre>
 *  flags   layout                                   direction   record
 *  0x0000  JSON message                             both        {@link Message}
 *  0x0001  binary publish batch                     C to B      {@link BinaryPublishBatch}
 *  0x0009  acked binary publish batch (0x01|0x08)   C to B      {@link BinaryAckedPublishBatch}
 *  0x0010  binary publish ack                       B to C      {@link BinaryPublishAck}
 *  0x0002  per-subscriber event batch               B to C      {@link BinaryEventBatch}
 *  0x0022  ... with base_offset (0x02|0x20)         B to C      {@link BinaryEventBatch}
 *  0x0004  shared event batch                       B to C      {@link BinarySharedEventBatch}
 *  0x0024  ... with base_offset (0x04|0x20)         B to C      {@link BinarySharedEventBatch}
 *  0x8024  multiplexed shared event batch           B to C      {@link BinaryMuxEventBatch}
 *  0x0029  routed acked publish batch (0x09|0x20)   C to B      {@link BinaryRoutedPublishBatch}
 *  0x0030  publish result (0x10|0x20)               B to C      {@link BinaryPublishResult}
 *  0x0026  watch changes (0x02|0x04|0x20)           B to C      {@link BinaryWatchChanges}
 * </pre>
 *
 * <p>{@code 0x0026} is this project's extension ({@link Capabilities#BINARY_WATCH}): cache changes for a watch
 * stream, sent only to a peer that advertised the capability.
 *
 * <p>{@code 0x0029} and {@code 0x0030} are this project's extension
 * ({@link Capabilities#ROUTED_BINARY_PUBLISH}): {@link #EVENT_BATCH_OFFSETS} ("with offsets") on the acked
 * publish and its ack — the request names its shard or key and asks for its offsets, the reply carries
 * them. A client sends {@code 0x0029} only to a broker that advertised the capability, and the broker
 * sends {@code 0x0030} only in reply to {@code 0x0029}.
 *
 * <p>{@code 0x8000} ({@link #MUX_DELIVERY}) is this project's extension: a shared event batch for a list of
 * subscription channels on one multiplexed session stream. It is only sent to a peer that advertised the
 * bit in {@code client_flags} ({@link Capabilities#SUBSCRIPTION_MUX}).
 *
 * <p>Bits outside {@link #KNOWN} ({@code 0x0040}-{@code 0x4000}) are reserved upstream and are
 * rejected by {@link FrameHeader#read} with {@link WireError#UNKNOWN_FLAGS}; a valid set of known bits
 * in an invalid combination (say {@code 0x0003}) is rejected by {@link PayloadKind#of(int)} with
 * {@link WireError#BAD_FLAG_COMBINATION}.
 *
 * <p>A peer may only send a flag it learned the other side supports: the low six bits of
 * {@code auth.client_flags} / {@code auth_ok.server_flags} advertise exactly these bits (see
 * {@link Capabilities}). A peer that advertised nothing is assumed to support {@link #ORIGINAL_V1}.
 *
 * <p>Stateless and thread-safe.
 */
public final class FrameFlags {
    /** C to B: the payload is a binary publish batch. */
    public static final int BINARY_PUBLISH_BATCH = 0x0001;
    /** B to C: per-subscriber ("legacy") event batch that carries a {@code subscription_id}. */
    public static final int BINARY_EVENT_BATCH = 0x0002;
    /** B to C: shared event batch, one encoding for every subscriber of a stream. */
    public static final int BINARY_EVENT_BATCH_SHARED = 0x0004;
    /** C to B: modifier on {@link #BINARY_PUBLISH_BATCH}; a 9-byte {request_id, ack_mode} prefix comes first. */
    public static final int BINARY_PUBLISH_ACKED = 0x0008;
    /** B to C: the payload is a binary publish ack. */
    public static final int BINARY_PUBLISH_ACK = 0x0010;
    /**
     * B to C: modifier on the event batches; adds a u64 {@code base_offset}. Also (extension) on the acked
     * publish batch and the publish ack: the routed publish {@code 0x0029} and its result {@code 0x0030}.
     */
    public static final int EVENT_BATCH_OFFSETS = 0x0020;
    /**
     * B to C (extension): modifier on {@link #BINARY_EVENT_BATCH_SHARED} with {@link #EVENT_BATCH_OFFSETS}; the
     * payload starts with the list of subscription channels it is for.
     */
    public static final int MUX_DELIVERY = 0x8000;
    /** Every flag bit wire v1 defines ({@code 0x003F}) plus {@link #MUX_DELIVERY}. Anything else is rejected. */
    public static final int KNOWN = 0x803F;
    /** What a peer that advertised no flags is assumed to support ({@code 0x0007}). Frozen upstream. */
    public static final int ORIGINAL_V1 = 0x0007;

    private FrameFlags() {
    }

    /** Whether {@code flags} has no bit outside {@link #KNOWN}. */
    public static boolean isKnown(int flags) {
        return (flags & ~KNOWN) == 0;
    }

    /**
     * Whether {@code flags} is one of the valid layouts for frames travelling in {@code direction}.
     * {@code 0} (JSON) is valid both ways.
     */
    public static boolean isValid(int flags, Direction direction) {
        PayloadKind kind = PayloadKind.lookup(flags);
        return kind != null && kind.allowedIn(direction);
    }

    /** Renders flags as {@code 0x0009(BINARY_PUBLISH_BATCH|BINARY_PUBLISH_ACKED)} for messages and logs. */
    public static String describe(int flags) {
        StringBuilder sb = new StringBuilder(String.format("0x%04X", flags & 0xFFFF));
        String[] names = {
            "BINARY_PUBLISH_BATCH", "BINARY_EVENT_BATCH", "BINARY_EVENT_BATCH_SHARED",
            "BINARY_PUBLISH_ACKED", "BINARY_PUBLISH_ACK", "EVENT_BATCH_OFFSETS", null, null, null, null, null,
            null, null, null, null, "MUX_DELIVERY"};
        String sep = "(";
        for (int bit = 0; bit < 16; bit++) {
            if ((flags & (1 << bit)) != 0) {
                sb.append(sep).append(bit < names.length && names[bit] != null ? names[bit]
                    : String.format("0x%04X", 1 << bit));
                sep = "|";
            }
        }
        if (!sep.equals("(")) {
            sb.append(')');
        }
        return sb.toString();
    }
}
