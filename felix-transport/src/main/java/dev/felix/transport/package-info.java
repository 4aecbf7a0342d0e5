/**
 * QUIC on Netty's native codec, for both sides: {@link dev.felix.transport.QuicServer} and
 * {@link dev.felix.transport.QuicClient} (endpoints), {@link dev.felix.transport.IoRuntime} (their event loops),
 * {@link dev.felix.transport.TransportConfig} (windows, stream limits, timeouts), TLS material and client trust
 * ({@link dev.felix.transport.TlsMaterial}, {@link dev.felix.transport.ClientTrust}), the length-prefixed frame
 * decoder both sides put first in a stream's pipeline ({@link dev.felix.transport.FrameDecoder}, given the
 * protocol's header check by its user) and ending a stream safely ({@link dev.felix.transport.StreamEnds}). Depends
 * on Netty, its QUIC codec and BouncyCastle only; knows nothing of Felix's frames or messages.
 */
package dev.felix.transport;
