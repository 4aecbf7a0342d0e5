package dev.felix.wire;

import java.util.Objects;

/**
 * Malformed or unacceptable wire input: the peer sent something this codec will not decode.
 *
 * <p>Checked on purpose: every decoder declares it, and it is the <em>only</em> exception a decoder
 * throws for any input bytes. Programming errors on the encode side (a {@code null} required field,
 * a name longer than 65535 bytes, a destination buffer that is too small) are reported with the
 * usual unchecked JDK exceptions instead.
 *
 * <p>The {@link #getMessage() message} names the field (as a path such as
 * {@code publish_batch.payloads[3]}) or the byte offset that failed, for logs and for the
 * human-readable text of an {@code error} reply. Branch on {@link #error()}, never on the text.
 *
 * <p>No stack trace is captured: malformed input is an expected condition on a broker, not a bug in
 * this code, and filling stack traces would make a flood of garbage frames needlessly expensive.
 */
public final class WireException extends Exception {
    private static final long serialVersionUID = 1L;

    private final WireError error;

    /**
     * @param error   the stable classification
     * @param message human-readable detail naming the field or offset
     */
    public WireException(WireError error, String message) {
        this(error, message, null);
    }

    /**
     * @param error   the stable classification
     * @param message human-readable detail naming the field or offset
     * @param cause   the underlying parser failure, if any
     */
    public WireException(WireError error, String message, Throwable cause) {
        super(message, cause, false, false);
        this.error = Objects.requireNonNull(error, "error");
    }

    /** The stable classification of the failure. */
    public WireError error() {
        return error;
    }

    /**
     * Returns a copy whose message is prefixed with {@code path} (a field name or {@code [index]}),
     * used while unwinding nested decoders so the final message names the full field path.
     */
    WireException prefixed(String path) {
        String msg = getMessage();
        String sep = msg.startsWith("[") ? "" : ".";
        return new WireException(error, path + sep + msg, getCause());
    }

    @Override
    public String toString() {
        return "WireException[" + error + "]: " + getMessage();
    }
}
