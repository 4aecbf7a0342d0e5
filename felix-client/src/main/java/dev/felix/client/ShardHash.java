package dev.felix.client;

/**
 * The shard a key maps to, computed exactly as the broker does ({@code Stream.shardFor} in felix-core):
 * 32-bit FNV-1a over the key's UTF-16 units, modulo the shard count. The cluster SDK needs it to send a
 * keyed publish straight to its shard's leader; a test in felix-server checks both agree.
 */
final class ShardHash {
    private ShardHash() {
    }

    static int of(String key, int shards) {
        int h = 0x811C9DC5;
        for (int i = 0; i < key.length(); i++) {
            h ^= key.charAt(i);
            h *= 0x01000193;
        }
        return Math.floorMod(h, shards);
    }
}
