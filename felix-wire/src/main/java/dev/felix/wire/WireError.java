package dev.felix.wire;

/**
 * Stable classification of everything that can be wrong with bytes received from a peer.
 *
 * <p>The names are part of this module's contract: the broker and the client SDK branch on them
 * (for example to answer {@code bad_request} or to end only the offending QUIC stream), tests
 * assert them, and metrics may be tagged with them. New constants may be added; existing ones are
 * never renamed or re-purposed.
 *
 * <p>Every decoder in {@code dev.felix.wire} reports malformed input as a {@link WireException}
 * carrying exactly one of these values; no other exception escapes a decoder for any input.
 */
public enum WireError {
    /** The first four header bytes are not {@code FLX1} ({@code 0x464C5831}). */
    BAD_MAGIC,
    /** The header version is not {@link FrameHeader#VERSION}. */
    UNSUPPORTED_VERSION,
    /** The header carries flag bits outside {@link FrameFlags#KNOWN}. */
    UNKNOWN_FLAGS,
    /** The flag bits are all known, but their combination is not a valid layout (or not in this direction). */
    BAD_FLAG_COMBINATION,
    /** The declared payload length exceeds the reader's configured maximum. */
    FRAME_TOO_LARGE,
    /** The input ended before a complete header, payload or field (also: a stream that ends inside a frame). */
    TRUNCATED,
    /** A binary payload has bytes left over after its last field. */
    TRAILING_BYTES,
    /** The JSON payload is not one syntactically valid JSON object. */
    MALFORMED_JSON,
    /** The JSON {@code type} is not a message type this codec knows. */
    UNKNOWN_TYPE,
    /** A required JSON key (or {@code type}) is absent. */
    MISSING_FIELD,
    /** A JSON key appears more than once in the same object. */
    DUPLICATE_FIELD,
    /** A field has the wrong JSON type, is out of range, is an unknown enum value, or breaks an invariant. */
    BAD_FIELD,
    /** A binary field is not canonical standard base64 with padding. */
    BAD_BASE64,
    /** Bytes that must be UTF-8 are not well-formed UTF-8 (or a string holds a lone surrogate). */
    BAD_UTF8,
    /** A binary element count cannot possibly fit in the remaining bytes (checked before allocating). */
    COUNT_TOO_LARGE,
    /** The acked-publish prefix carries an ack mode other than 1 (per_message) or 2 (per_batch). */
    BAD_ACK_MODE
}
