/**
 * The replication protocol between nodes: its messages ({@link dev.felix.cluster.peer.PeerMessage}), their
 * binary codec ({@link dev.felix.cluster.peer.PeerCodec}), and the mutual-TLS QUIC endpoint that carries them
 * ({@link dev.felix.cluster.peer.PeerEndpoint}). A follower opens one connection to each leader node it
 * follows, and one stream on it per unit it fetches: a request/response conversation ({@code fetch} →
 * {@code records} or {@code refused}) plus {@code progress} notes. Nothing here knows about logs or
 * leadership; {@code dev.felix.cluster.replication} does.
 */
package dev.felix.cluster.peer;
