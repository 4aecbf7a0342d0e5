package dev.felix.cluster.peer;

import dev.felix.cluster.ShardKey;
import java.util.Objects;

/** One message of the replication protocol. Immutable. */
public sealed interface PeerMessage {

    /**
     * Follower to leader: "send me records of {@code key} from {@code from}".
     *
     * @param epoch       the leader epoch the follower follows; the leader refuses another
     * @param from        the follower's log end (everything below it is written there)
     * @param lastEpoch   epoch of the follower's last record ({@code -1}: none): lets the leader see a
     *                    divergent tail and answer where to truncate
     * @param durableEnd  offset below which the follower's log is forced to disk
     * @param maxBytes    record bytes the answer may carry at most
     * @param waitMillis  how long the leader may hold the request when it has nothing new (long poll)
     * @param onlyEpoch   {@code -1} normally; an epoch when a returning leader adopts its own records from a
     *                    replica: only records written in that epoch are sent, and the replica answers from
     *                    its own log whoever leads
     */
    record Fetch(ShardKey key, long epoch, long from, long lastEpoch, long durableEnd, int maxBytes, int waitMillis,
                 long onlyEpoch) implements PeerMessage {
        public Fetch {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Follower to leader: its log now holds (and has forced to disk) this much. No answer. */
    record Progress(ShardKey key, long epoch, long writtenEnd, long durableEnd) implements PeerMessage {
        public Progress {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * Leader to follower: records {@code from .. from+count-1}, all written in {@code recordsEpoch}, in the
     * log's own layout (ready for {@code appendRaw}); possibly none (a long poll that timed out).
     *
     * @param epoch        the leader's epoch
     * @param hwm          the leader's committed end (readers may see offsets below it)
     * @param leaderEnd    the leader's log end
     */
    record Records(long epoch, long from, long recordsEpoch, long hwm, long leaderEnd, int count, byte[] bytes)
            implements PeerMessage {
        public Records {
            Objects.requireNonNull(bytes, "bytes");
        }
    }

    /**
     * Leader to follower: the fetch cannot be served as asked.
     *
     * @param epoch  the answering node's epoch for the unit ({@code -1}: none)
     * @param offset {@link Refusal#DIVERGED}: truncate to here; {@link Refusal#TRIMMED}: the leader's log
     *               starts here; otherwise {@code -1}
     */
    record Refused(Refusal code, long epoch, long offset, String message) implements PeerMessage {
        public Refused {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * A relaying node to a shard's leader: "send me every batch of this shard from now on" (cross-node relay, one
     * stream per shard per node). Answered with {@link RelayStarted} then {@link RelayEvents}, or {@link Refused}.
     *
     * @param stream the stream's full name, {@code tenant/namespace/stream}
     * @param shard  the shard index
     */
    record RelaySubscribe(String stream, int shard) implements PeerMessage {
        public RelaySubscribe {
            Objects.requireNonNull(stream, "stream");
        }
    }

    /**
     * A relaying node to a shard's leader: "send me every batch of this shard from {@code from} on" — a replay for
     * one local subscription that starts behind the node's relay, or heals after the relay lost events for it. The
     * leader reads from its log (or memory) as for a subscriber of its own, so a slow reader is caught up from the
     * log, never skipped. Answered like {@link RelaySubscribe}, plus {@link RelayGap} for offsets the leader no
     * longer holds.
     *
     * @param from the first offset wanted, or {@link #EARLIEST}
     */
    record RelayCatchUp(String stream, int shard, long from) implements PeerMessage {
        /** {@code from} for the oldest offset the leader holds. */
        public static final long EARLIEST = -1;

        public RelayCatchUp {
            Objects.requireNonNull(stream, "stream");
        }
    }

    /**
     * Leader to relaying node, on a catch-up stream: offsets {@code from..to} cannot be served (retention removed
     * them, an ephemeral shard restarted, ...); {@code reason} is the gap notice's wire name.
     */
    record RelayGap(long from, long to, String reason) implements PeerMessage {
        public RelayGap {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Leader to relaying node: the relay's first batch will start at offset {@code next}, of the shard's
     * {@code incarnation} (what the relaying node tells its own subscribers of an ephemeral shard).
     */
    record RelayStarted(long next, long incarnation) implements PeerMessage {
    }

    /**
     * Leader to relaying node: one committed batch, events at {@code baseOffset ..}. A batch that starts past the end
     * of the previous one means the leader skipped offsets (its queue for the relay overflowed): the relay fences.
     */
    record RelayEvents(long baseOffset, byte[][] payloads) implements PeerMessage {
        public RelayEvents {
            Objects.requireNonNull(payloads, "payloads");
        }
    }

    /**
     * Follower to leader, for a log cache: "send me part of your newest snapshot". A cache's leader compacts its log
     * below its snapshots, so a replica keeps the leader's snapshots beside its copy of the log: it can then load
     * the cache (and trim its own log) exactly as the leader does. Answered with {@link SnapshotPart} or
     * {@link Refused}.
     *
     * @param epoch    the epoch the follower follows; the leader refuses another
     * @param after    ask for the newest snapshot only if its offset is above this ({@code -1}: any)
     * @param offset   {@code -1} to start; else the snapshot being transferred (its offset)
     * @param position byte position in that snapshot's file to continue from
     * @param maxBytes file bytes the answer may carry at most
     */
    record SnapshotFetch(ShardKey key, long epoch, long after, long offset, long position, int maxBytes)
            implements PeerMessage {
        public SnapshotFetch {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * Leader to follower: bytes {@code position ..} of the file of the snapshot at {@code offset}, which is
     * {@code total} bytes long. {@code offset == -1}: the leader has no snapshot newer than asked for.
     */
    record SnapshotPart(long offset, long position, long total, byte[] bytes) implements PeerMessage {
        public SnapshotPart {
            Objects.requireNonNull(bytes, "bytes");
        }

        /** The leader has no snapshot newer than the one asked past. */
        public static SnapshotPart none() {
            return new SnapshotPart(-1, 0, 0, new byte[0]);
        }
    }

    /** Why a fetch was refused. Stable numbers on the wire. */
    enum Refusal {
        /** The follower's epoch is older than the leader's: refresh metadata and follow the new epoch. */
        STALE_EPOCH(1),
        /** The answering node does not lead the unit (or leads it at an older epoch: it is deposed). */
        NOT_LEADER(2),
        /** The follower's tail diverges from the leader's log: truncate to {@code offset} and fetch again. */
        DIVERGED(3),
        /** The leader no longer holds {@code from}: reset the log to start at {@code offset}. */
        TRIMMED(4),
        /** The unit is unknown here. */
        UNKNOWN(5),
        /** The log cannot be read here now (storage failure); try again later. */
        FAILED(6);

        final int wire;

        Refusal(int wire) {
            this.wire = wire;
        }

        static Refusal of(int wire) {
            for (Refusal r : values()) {
                if (r.wire == wire) {
                    return r;
                }
            }
            return null;
        }
    }
}
