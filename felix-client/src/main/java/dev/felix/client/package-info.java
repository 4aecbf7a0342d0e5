/**
 * The Java SDK. {@link dev.felix.client.FelixClient} is one connection to a broker, configured by
 * {@link dev.felix.client.ClientConfig}; from it come {@link dev.felix.client.Publisher}s,
 * {@link dev.felix.client.Subscription}s (which deliver {@link dev.felix.client.Event}s and
 * {@link dev.felix.client.Gap}s, or run a {@link dev.felix.client.SubscriptionHandler}), caches
 * ({@link dev.felix.client.Cache}, {@link dev.felix.client.CacheMirror}) and admin calls
 * ({@link dev.felix.client.StreamAdmin}, {@link dev.felix.client.CacheAdmin},
 * {@link dev.felix.client.ClusterAdmin}). Everything else is package-private plumbing: request streams
 * ({@code FrameStream}, {@code OneShotRequest}), the multiplexed subscription session ({@code SessionStream},
 * {@code MuxChannel}), per-shard event readers ({@code EventStreamReader}, {@code ShardFeed}), the bounded receive
 * queue and the publish budget. Depends on felix-wire (frames and messages) and felix-transport (QUIC, TLS); each
 * stateful class's javadoc says which threads call it and who releases the buffers it touches.
 */
package dev.felix.client;
