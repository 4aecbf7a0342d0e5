package dev.felix.cluster.relay;

import java.util.Arrays;

/**
 * One relayed shard on this node: its kind, its worker, and the local subscriptions it fans out to.
 *
 * <p><b>Threads.</b> The subscription array is copy-on-write: {@link #add}/{@link #remove} from any thread, and
 * the worker iterates a snapshot without a lock. {@link #routedEnd} belongs to the dispatcher thread.
 */
final class ShardFeed {

    private static final RelayedSubscription[] NONE = new RelayedSubscription[0];

    final RelayKey key;
    final StreamKind kind;
    final int worker;
    private volatile RelayedSubscription[] subscriptions = NONE;
    /** Offset after the last batch routed, -1 before the first; dispatcher thread only. */
    long routedEnd = -1;

    ShardFeed(RelayKey key, StreamKind kind, int worker) {
        this.key = key;
        this.kind = kind;
        this.worker = worker;
    }

    RelayedSubscription[] subscriptions() {
        return subscriptions;
    }

    synchronized void add(RelayedSubscription s) {
        RelayedSubscription[] now = Arrays.copyOf(subscriptions, subscriptions.length + 1);
        now[now.length - 1] = s;
        subscriptions = now;
    }

    synchronized void remove(RelayedSubscription s) {
        RelayedSubscription[] now = subscriptions;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == s) {
                RelayedSubscription[] less = new RelayedSubscription[now.length - 1];
                System.arraycopy(now, 0, less, 0, i);
                System.arraycopy(now, i + 1, less, i, now.length - i - 1);
                subscriptions = less;
                return;
            }
        }
    }
}
