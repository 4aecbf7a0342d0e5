package dev.felix.wire;

import java.util.StringJoiner;

/**
 * The u16 capability words exchanged on every stream: {@code auth.client_flags} (what the client
 * supports and asks for) and {@code auth_ok.server_flags} (what the broker supports).
 *
 * <pre>
 *   bit    15  | 14       13      12        11    10     9           8           | 7  6     | 5..0
 *          MUX | LIFELINE CLUSTER CACHE_EXT ADMIN SHARDS GAP_NOTICES ERROR_CODES | reserved | frame flags (upstream)
 * </pre>
 *
 * <ul>
 *   <li><b>{@code 0x003F}</b> (upstream): "I support frame flag X", bit for bit the same values as
 *       {@link FrameFlags}. A peer that sent no {@code client_flags} is treated as
 *       {@link FrameFlags#ORIGINAL_V1}; a client that got plain {@code ok} instead of {@code auth_ok}
 *       assumes the same of the broker.</li>
 *   <li><b>{@code 0x00C0}</b>: left unused, room for upstream to add frame flags.</li>
 *   <li><b>{@code 0x8000}</b> (ours): support for the multiplexed event frame flag
 *       ({@link #SUBSCRIPTION_MUX}).</li>
 *   <li><b>{@code 0x7F00}</b> (ours): capability-only extension bits. They never appear in a frame
 *       header; they only say which extension messages and fields a peer understands.</li>
 * </ul>
 *
 * <p><b>The rule</b>: a peer that did not ask for an extension never receives it. The broker computes
 * {@link #negotiate(int, int)} once per stream and, before sending anything, checks
 * {@link #permits(int, Message)}; the client sends extension requests only when the broker
 * advertised the bit. Unknown bits from a newer peer are harmless: negotiation is an intersection.
 *
 * <p>Which extension governs which message or field is defined by {@link #required(Message)} and
 * documented in {@code docs/wire.md}. Stateless and thread-safe.
 */
public final class Capabilities {
    /** {@code error} and {@code publish_error} may carry {@code code}; {@code error} may carry {@code request_id}. */
    public static final int ERROR_CODES = 0x0100;
    /**
     * {@code gap} messages on event streams; subscriber queue policy fields on {@code subscribe};
     * {@code incarnation} on {@code subscribe} and {@code event_stream_hello}.
     */
    public static final int GAP_NOTICES = 0x0200;
    /** Shard fields: {@code key}/{@code shard} on publishes and subscribe, {@code shards}, {@code shard}. */
    public static final int SHARDS = 0x0400;
    /** Stream admin messages: {@code stream_create}, {@code stream_describe}, {@code stream_list} and replies. */
    public static final int ADMIN = 0x0800;
    /**
     * Cache extensions: {@code cache_delete}, {@code cache_create}, {@code cache_describe},
     * {@code cache_info}, {@code cache_watch}, {@code watch_snapshot}, {@code watch_change},
     * {@code watch_ended}, and {@code offset} on {@code cache_ok}.
     */
    public static final int CACHE_EXT = 0x1000;
    /** Cluster extensions ({@code not_leader} redirects). Reserved: no message uses it yet. */
    public static final int CLUSTER = 0x2000;
    /**
     * The client keeps its {@code subscribe} stream open for the life of the subscription; ending it
     * (FIN or reset) unsubscribes. Without it the broker learns of an unsubscribe only when the
     * connection closes.
     */
    public static final int SUBSCRIPTION_LIFELINE = 0x4000;
    /**
     * Multiplexed subscriptions: a client may open one session stream that carries many subscriptions
     * ({@code mux_subscribe} … {@code unsubscribe}, credit-based flow control per channel) and receive their
     * events as {@link FrameFlags#MUX_DELIVERY} frames, one per batch for every channel it concerns. The bit is
     * the frame flag itself (the upstream convention for frame-flag support bits).
     */
    public static final int SUBSCRIPTION_MUX = FrameFlags.MUX_DELIVERY;

    /**
     * Where the second capability word ({@code auth.client_flags_ext} / {@code auth_ok.server_flags_ext}, a
     * u16 each) sits in a capability set: bits 16-31. The first word has no bit left, so extensions from
     * {@link #ROUTED_BINARY_PUBLISH} on are advertised there. A peer that sent no second word has none of them.
     */
    public static final int EXT_SHIFT = 16;
    /**
     * Second word bit {@code 0x0001}: the routed acked binary publish {@code 0x0029}
     * ({@link BinaryRoutedPublishBatch}: the publish names its key or shard) and its reply, the publish
     * result {@code 0x0030} ({@link BinaryPublishResult}: first offset, count and shard, or an error with its
     * code). A client sends {@code 0x0029} only to a broker that advertised it.
     */
    public static final int ROUTED_BINARY_PUBLISH = 0x0001 << EXT_SHIFT;
    /**
     * Second word bit {@code 0x0002}: cache changes on a watch stream as binary frames {@code 0x0026}
     * ({@link BinaryWatchChanges}: no JSON, no base64), encoded once per change and shared by every watcher that
     * negotiated it. A watcher without it gets JSON {@code watch_change}; snapshots and {@code watch_ended} stay
     * JSON either way.
     */
    public static final int BINARY_WATCH = 0x0002 << EXT_SHIFT;

    /** The upstream frame-flag part of a capability word. */
    public static final int FRAME_FLAG_MASK = FrameFlags.KNOWN;
    /** Bits kept free for upstream frame flags. */
    public static final int RESERVED_UPSTREAM = 0x00C0;
    /** All extension bits defined here. */
    public static final int EXTENSION_MASK = 0x7F00;
    /** Everything this codec understands in the first word; what a current broker advertises in {@code server_flags}. */
    public static final int ALL = FRAME_FLAG_MASK | EXTENSION_MASK;
    /** Everything this codec understands in the second word ({@code client_flags_ext} / {@code server_flags_ext}). */
    public static final int EXT_ALL = (ROUTED_BINARY_PUBLISH | BINARY_WATCH) >>> EXT_SHIFT;
    /** Both words: the whole capability set of a current peer. */
    public static final int ALL_WORDS = combine(ALL, EXT_ALL);

    private Capabilities() {
    }

    /** Whether every bit of {@code bits} is set in {@code flags}. */
    public static boolean has(int flags, int bits) {
        return (flags & bits) == bits;
    }

    /**
     * The capabilities in force on a stream: the bits both sides have. Pass
     * {@link FrameFlags#ORIGINAL_V1} for a side that advertised nothing. Works on whole capability sets
     * ({@link #combine}) as on first words alone.
     */
    public static int negotiate(int clientFlags, int serverFlags) {
        return clientFlags & serverFlags & ALL_WORDS;
    }

    /** The capability set of a first word and a second word (each a u16). */
    public static int combine(int flags, int ext) {
        return (flags & 0xFFFF) | ((ext & 0xFFFF) << EXT_SHIFT);
    }

    /** The first word ({@code client_flags} / {@code server_flags}) of a capability set. */
    public static int firstWord(int capabilities) {
        return capabilities & 0xFFFF;
    }

    /** The second word ({@code client_flags_ext} / {@code server_flags_ext}) of a capability set. */
    public static int secondWord(int capabilities) {
        return capabilities >>> EXT_SHIFT;
    }

    /** The frame-flag part ({@code 0x003F}) of a capability word. */
    public static int frameFlags(int capabilities) {
        return capabilities & FRAME_FLAG_MASK;
    }

    /** The extension part ({@code 0x7F00}) of a capability word. */
    public static int extensions(int capabilities) {
        return capabilities & EXTENSION_MASK;
    }

    /** Whether a stream description carries any field of the {@link #CLUSTER} extension. */
    private static boolean clustered(StreamDescription d) {
        if (d.consistency() != null || d.replicas() != null) {
            return true;
        }
        if (d.shardInfo() != null) {
            for (ShardInfo s : d.shardInfo()) {
                if (s.leader() != null || s.epoch() != null || s.replicas() != null || s.status() != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The capability bits a peer must have negotiated to receive {@code m}: the bit of its type if
     * it is an extension message, plus the bits of every extension field that is present. Upstream
     * messages with no extension field need {@code 0}.
     */
    public static int required(Message m) {
        int bits = m.type().requiredCapability();
        if (m instanceof Message.ErrorMessage e) {
            if (e.code() != null || e.requestId() != null || e.offset() != null) {
                bits |= ERROR_CODES;
            }
            if (e.leader() != null) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.PublishError e) {
            if (e.code() != null) {
                bits |= ERROR_CODES;
            }
            if (e.leader() != null) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.StreamCreate c) {
            if (c.consistency() != null || c.replicas() != null) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.CacheCreate c) {
            if (c.consistency() != null) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.CacheInfo i) {
            if (i.consistency() != null) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.CacheListResult r) {
            for (CacheDescription d : r.caches()) {
                if (d.consistency() != null) {
                    bits |= CLUSTER;
                }
            }
        } else if (m instanceof Message.StreamInfo i) {
            if (clustered(i.stream())) {
                bits |= CLUSTER;
            }
        } else if (m instanceof Message.StreamListResult r) {
            for (StreamDescription d : r.streams()) {
                if (clustered(d)) {
                    bits |= CLUSTER;
                }
            }
        } else if (m instanceof Message.Publish p) {
            if (p.key() != null || p.shard() != null) {
                bits |= SHARDS;
            }
        } else if (m instanceof Message.PublishBatch p) {
            if (p.key() != null || p.shard() != null) {
                bits |= SHARDS;
            }
        } else if (m instanceof Message.Subscribe s) {
            if (s.shard() != null) {
                bits |= SHARDS;
            }
            if (s.queuePolicy() != null || s.queueEvents() != null || s.queueBytes() != null
                || s.incarnation() != null) {
                bits |= GAP_NOTICES;
            }
        } else if (m instanceof Message.Subscribed s) {
            if (s.shards() != null) {
                bits |= SHARDS;
            }
        } else if (m instanceof Message.MuxSubscribed ms) {
            if (ms.incarnations() != null) {
                bits |= GAP_NOTICES;
            }
        } else if (m instanceof Message.EventStreamHello h) {
            if (h.shard() != null) {
                bits |= SHARDS;
            }
            if (h.incarnation() != null) {
                bits |= GAP_NOTICES;
            }
        } else if (m instanceof Message.CacheOk c) {
            if (c.offset() != null) {
                bits |= CACHE_EXT;
            }
        } else if (m instanceof Message.PublishOk p) {
            if (p.offset() != null || p.count() != null) {
                bits |= FrameFlags.EVENT_BATCH_OFFSETS;
            }
            if (p.shard() != null) {
                bits |= SHARDS;
            }
        } else if (m instanceof Message.Gap g) {
            if (g.shard() != null) {
                bits |= SHARDS;
            }
        }
        return bits;
    }

    /** Whether a peer with {@code negotiated} capabilities may be sent {@code m}. */
    public static boolean permits(int negotiated, Message m) {
        return has(negotiated, required(m));
    }

    /**
     * Checks that a received {@code client_flags}/{@code server_flags} value is a u16.
     *
     * @throws IllegalArgumentException if not
     */
    public static int checkU16(int flags) {
        if ((flags & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("capability flags must be a u16: " + flags);
        }
        return flags;
    }

    /** Renders a capability word for logs, e.g. {@code 0x0539[BINARY_PUBLISH_BATCH|...|ERROR_CODES]}. */
    public static String describe(int flags) {
        String[] names = {
            "BINARY_PUBLISH_BATCH", "BINARY_EVENT_BATCH", "BINARY_EVENT_BATCH_SHARED",
            "BINARY_PUBLISH_ACKED", "BINARY_PUBLISH_ACK", "EVENT_BATCH_OFFSETS", null, null,
            "ERROR_CODES", "GAP_NOTICES", "SHARDS", "ADMIN", "CACHE_EXT", "CLUSTER", null, null,
            "ROUTED_BINARY_PUBLISH", "BINARY_WATCH"};
        StringJoiner j = new StringJoiner("|", (flags >>> EXT_SHIFT) != 0 ? String.format("0x%08X[", flags)
            : String.format("0x%04X[", flags & 0xFFFF), "]");
        for (int bit = 0; bit < 32; bit++) {
            if ((flags & (1 << bit)) != 0) {
                String n = bit < names.length ? names[bit] : null;
                j.add(n != null ? n : String.format("0x%04X", 1 << bit));
            }
        }
        return j.toString();
    }
}
