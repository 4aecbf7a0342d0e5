package dev.felix.bench.system;

import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;

/**
 * A jnats listener that keeps the first problem a connection reports (server error, exception, slow consumer) and
 * nothing else: jnats's default listener logs every JetStream flow-control round through java.util.logging,
 * which would bury the progress lines. Thread-safe.
 */
public final class FirstProblem implements ErrorListener {

    private volatile String problem;

    /** The first problem reported, or null. */
    public String get() {
        return problem;
    }

    private synchronized void note(String what) {
        if (problem == null) {
            problem = what;
        }
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
        note("server error: " + error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
        note("connection exception: " + exp);
    }

    @Override
    public void slowConsumerDetected(Connection conn, Consumer consumer) {
        note("slow consumer detected (messages dropped)");
    }
}
