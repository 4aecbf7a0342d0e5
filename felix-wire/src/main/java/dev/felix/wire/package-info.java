/**
 * Felix wire v1: frames, JSON messages, binary payloads and capability flags, shared by the broker
 * and the client SDK. No Netty here: everything works on {@code byte[]} and
 * {@link java.nio.ByteBuffer}, so either side can wrap it in its own pipeline.
 *
 * <p>Start with {@link dev.felix.wire.WireCodec}. The frame header layout lives in
 * {@link dev.felix.wire.FrameHeader}, flag bits in {@link dev.felix.wire.FrameFlags}, capability bits
 * (including our extensions) in {@link dev.felix.wire.Capabilities}, the JSON messages in
 * {@link dev.felix.wire.Message}, the binary layouts in the {@code Binary*} records and
 * {@link dev.felix.wire.EventBatchEncoder}. Errors: {@link dev.felix.wire.WireException} with a
 * stable {@link dev.felix.wire.WireError}.
 *
 * <p>The wire format is upstream Felix wire v1 ({@code reference/felix/wire.md}) byte for byte,
 * checked against the upstream conformance vectors; our additions and the places where we are
 * stricter than upstream are listed in {@code docs/wire.md}.
 *
 * <p>Everything in this package is stateless or immutable and thread-safe. Types not needed by
 * other modules are package-private.
 */
package dev.felix.wire;
