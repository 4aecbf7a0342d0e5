/**
 * Where the wire meets the core. {@link dev.felix.server.protocol.ConnectionHandler} and
 * {@link dev.felix.server.protocol.StreamInitializers} set up each QUIC connection and stream;
 * {@link dev.felix.server.protocol.ClientStreamHandler} owns one client-opened stream's life: authentication
 * ({@link dev.felix.server.protocol.StreamAuthentication}), then the
 * {@link dev.felix.server.protocol.RequestDispatcher}, which decodes each frame and calls the handler for its
 * message ({@link dev.felix.server.protocol.PublishHandler}, {@link dev.felix.server.protocol.SubscribeHandler},
 * {@link dev.felix.server.protocol.CacheRequests}, {@link dev.felix.server.protocol.Admin}, ...). Every shard and
 * cache is found through {@link dev.felix.server.protocol.Routing}, the one source of {@code not_leader}. Outbound
 * data is written by {@link dev.felix.server.protocol.PulledWriter}s ({@code SubscriptionWriter},
 * {@code WatchWriter}), {@link dev.felix.server.protocol.MuxSession}s and {@link dev.felix.server.protocol.AckWriter};
 * {@link dev.felix.server.protocol.ReadBurst} has the drains a client stream's read woke run as that read completes,
 * before the stream's acks. Every class here runs on a connection's
 * event loop unless its javadoc says otherwise. Depends on felix-core, felix-wire and felix-transport.
 */
package dev.felix.server.protocol;
