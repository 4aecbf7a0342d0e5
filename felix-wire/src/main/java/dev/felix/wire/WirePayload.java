package dev.felix.wire;

/**
 * Anything that can be the payload of one frame: a JSON {@link Message} (flags {@code 0}) or a
 * {@link BinaryPayload} (flags selecting a binary layout). Lets a reader handle every frame of a
 * stream with one {@link WireCodec#decode(Frame)} call and one {@code instanceof} chain.
 */
public sealed interface WirePayload permits Message, BinaryPayload {
    /** The header flags this payload is framed with. */
    int frameFlags();
}
