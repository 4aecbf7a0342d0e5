package dev.felix.server.metrics;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Who closed a connection or a client-opened stream, and why: the vocabulary of
 * {@code felix_connection_closes_total{by,reason}} and {@code felix_stream_closes_total{by,reason}}, and the
 * counters behind them. Every series exists from the start (at 0), so a dashboard can rate any of them.
 * Thread-safe.
 */
public final class Closes {

    /** Who ended it. */
    public enum By {
        /** The client: its CONNECTION_CLOSE, or its end of the stream. */
        CLIENT,
        /** This broker: shutdown, an error it answered, a stream it finished. */
        BROKER,
        /** Neither said so: the idle timeout fired or the stream was reset under it. */
        TRANSPORT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why, in a small fixed set. */
    public enum Reason {
        /** An orderly end (the SDK's close, a finished request stream). */
        NORMAL,
        /** No packet from the peer within the QUIC idle timeout. */
        IDLE_TIMEOUT,
        /** This broker is draining. */
        SHUTTING_DOWN,
        /** Malformed input or a transport error code from the peer. */
        PROTOCOL_ERROR,
        /** Authentication failed (or a TLS alert ended the handshake). */
        AUTH,
        /** Reset or failed under the application (an exception on the stream, a reset). */
        RESET;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether a close for this reason is part of normal operation (logged at INFO, else WARN). */
        public boolean expected() {
            return this == NORMAL || this == SHUTTING_DOWN;
        }
    }

    private final Map<By, Map<Reason, LongAdder>> connections = table();
    private final Map<By, Map<Reason, LongAdder>> streams = table();

    public void connection(By by, Reason reason) {
        connections.get(by).get(reason).increment();
    }

    public void stream(By by, Reason reason) {
        streams.get(by).get(reason).increment();
    }

    /** Connection closes counted so far for {@code by} / {@code reason}. */
    public long connectionCount(By by, Reason reason) {
        return connections(by, reason).sum();
    }

    /** Stream closes counted so far for {@code by} / {@code reason}. */
    public long streamCount(By by, Reason reason) {
        return streams(by, reason).sum();
    }

    LongAdder connections(By by, Reason reason) {
        return connections.get(by).get(reason);
    }

    LongAdder streams(By by, Reason reason) {
        return streams.get(by).get(reason);
    }

    private static Map<By, Map<Reason, LongAdder>> table() {
        Map<By, Map<Reason, LongAdder>> t = new EnumMap<>(By.class);
        for (By by : By.values()) {
            Map<Reason, LongAdder> row = new EnumMap<>(Reason.class);
            for (Reason r : Reason.values()) {
                row.put(r, new LongAdder());
            }
            t.put(by, row);
        }
        return t;
    }
}
