package dev.felix.demos.divergence;

import dev.felix.client.CacheSpec;
import dev.felix.client.ClientConfig;
import dev.felix.client.FelixClient;
import dev.felix.core.cache.CacheConfig;
import dev.felix.demos.common.Verdict;
import dev.felix.transport.TransportConfig;
import java.util.List;
import java.util.Map;

/**
 * The keyspace lives in a memory cache; every consumer is a {@link dev.felix.client.CacheMirror} of it. A
 * stalled mirror is ended by the broker when its watch queue overflows, never waited for, and converges
 * again by re-watching. Promise: no consumer ends with a wrong key, and the publisher holds its rate.
 */
final class WatchMode implements DivergenceMode {

    @Override
    public String name() {
        return "watch";
    }

    @Override
    public String label() {
        return "watch (memory cache, every consumer a CacheMirror)";
    }

    @Override
    public List<String> checkpoints(DivergenceConfig c) {
        return List.of(
                "cache                 memory; its last " + CacheConfig.defaults().changeRingEvents()
                        + " changes are the resume window",
                "writer                one put per change, pipelined per tick, each acknowledged",
                "watch queue           " + c.queueCapacity() + " changes per mirror (full: watch_ended{resume_from})",
                "mirror                re-watches from resume_from, or a fresh snapshot if it is gone",
                "client stream window  " + (c.streamWindowBytes() >> 10) + " KiB");
    }

    @Override
    public Map<String, String> brokerSettings(DivergenceConfig c) {
        // Broker defaults: the writer's puts must not be held back by a small receive window; what bounds a
        // mirror is its own window (the client side) and its watch queue. (A cluster's nodes, --nodes 3, are
        // started with their defaults too: there is nothing to pass them.)
        return Map.of();
    }

    @Override
    public ClientConfig.Builder client(ClientConfig.Builder b, DivergenceConfig c) {
        // A small window, so a paused mirror's backlog reaches the broker's watch queue within the stall.
        return b.transport(TransportConfig.defaults().withStreamWindowBytes(c.streamWindowBytes()));
    }

    @Override
    public ChangeSource openSource(FelixClient admin, DivergenceConfig c) {
        return CacheSource.create(admin, CacheSpec.memory(), c.queueCapacity());
    }

    @Override
    public List<String> explanation() {
        return List.of(
                "Under watch each consumer is a mirror of a cache. When one stops reading, the broker",
                "does not wait for it and does not drop changes behind its back: it ends that watch",
                "with the offset to resume from. The mirror re-watches from there (or takes a fresh",
                "snapshot if the cache no longer holds it) and converges; the writer never slows down.");
    }

    @Override
    public Verdict check(DivergenceOutcome outcome) {
        return DivergencePromises.mirrorsConverge(outcome);
    }

    @Override
    public boolean mirrors() {
        return true;
    }

    @Override
    public String toString() {
        return name();
    }
}
