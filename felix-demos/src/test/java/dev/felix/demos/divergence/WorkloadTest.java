package dev.felix.demos.divergence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generator is bit-exact with upstream: same PRNG, weight table, draw order and payload layout. */
class WorkloadTest {

    @Test
    void xorshiftFromTheSeedGivesUpstreamsFirstOutputs() {
        XorShift64Star rng = new XorShift64Star(XorShift64Star.SEED);
        assertThat(XorShift64Star.SEED).isEqualTo(0x5EEDL);
        assertThat(rng.next()).isEqualTo(0x970d78420bec184aL);
        assertThat(rng.next()).isEqualTo(0xc7e2c283945e48d8L);
        assertThat(rng.next()).isEqualTo(0xe90a11ce3da04682L);
    }

    @Test
    void weightTableSizesMatchUpstream() {
        assertTable(2000, 9460, 31, 1000);
        assertTable(500, 2343, 7, 250);
    }

    private static void assertTable(int keys, int length, int atMax, int atOne) {
        int[] table = Keyspace.weightTable(keys);
        assertThat(table).hasSize(length);
        int[] weights = new int[keys];
        for (int k : table) {
            weights[k]++;
        }
        assertThat(java.util.Arrays.stream(weights).filter(w -> w == Keyspace.MAX_WEIGHT).count()).isEqualTo(atMax);
        assertThat(java.util.Arrays.stream(weights).filter(w -> w == 1).count()).isEqualTo(atOne);
    }

    @Test
    void firstFiveChangesMatchUpstreamAndTheAuthorityMovesFirst() {
        Authority authority = new Authority(2000);
        ChangeGenerator g = new ChangeGenerator(new Keyspace(2000), authority);
        List<ChangePayload> changes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            changes.add(g.next());
        }
        assertThat(changes).extracting(ChangePayload::key).containsExactly(1, 210, 26, 131, 139);
        assertThat(changes).extracting(ChangePayload::value).containsExactly(
                Long.parseUnsignedLong("14403288428669978840"), Long.parseUnsignedLong("1495824491975189034"),
                Long.parseUnsignedLong("7591629385997092303"), Long.parseUnsignedLong("15348916339779144202"),
                Long.parseUnsignedLong("370526138234140378"));
        assertThat(changes).extracting(ChangePayload::version).containsExactly(1L, 2L, 3L, 4L, 5L);
        Authority.Snapshot s = authority.snapshot();
        assertThat(s.written()[210]).isTrue();
        assertThat(s.values()[210]).isEqualTo(Long.parseUnsignedLong("1495824491975189034"));
        assertThat(s.written()[0]).isFalse();
    }

    @Test
    void payloadIsBigEndianPaddedWithZerosAndDecodesBack() {
        ChangePayload c = new ChangePayload(0x0102, 0x0304050607080910L, -1L);
        byte[] bytes = c.encode(64);
        assertThat(bytes).hasSize(64);
        assertThat(bytes[0]).isEqualTo((byte) 0x01);
        assertThat(bytes[1]).isEqualTo((byte) 0x02);
        assertThat(bytes[2]).isEqualTo((byte) 0x03);
        assertThat(bytes[18]).isZero();
        assertThat(bytes[63]).isZero();
        assertThat(ChangePayload.decode(bytes, 1000)).isEqualTo(c);
        assertThat(c.encode(4)).hasSize(ChangePayload.HEADER_BYTES);
        assertThat(ChangePayload.decode(new byte[17], 1000)).as("too short").isNull();
        assertThat(ChangePayload.decode(bytes, 0x0102)).as("key outside the keyspace").isNull();
    }

    @Test
    void localCopyIsLastWriterWinsAndOnlyWrittenKeysCanBeWrong() {
        Authority authority = new Authority(4);
        authority.set(1, 5, 50);
        authority.set(2, 6, 60);
        LocalCopy copy = new LocalCopy(4);
        copy.apply(new ChangePayload(1, 5, 50));
        copy.apply(new ChangePayload(1, 3, 30)); // older: ignored
        copy.apply(new ChangePayload(3, 1, 10)); // a key the authority never wrote: never wrong
        assertThat(copy.wrongKeys(authority.snapshot())).containsExactly(2);
        copy.apply(new ChangePayload(2, 6, 60));
        assertThat(copy.wrongKeys(authority.snapshot())).isEmpty();
    }

    @Test
    void keyNamesForTheReport() {
        assertThat(Keyspace.name(0)).isEqualTo("cluster/membership");
        assertThat(Keyspace.name(9)).isEqualTo("config/log-level");
        assertThat(Keyspace.name(42)).isEqualTo("config/key-0042");
    }

    @Test
    void phasesFollowWholeSeconds() {
        assertThat(DivergencePhase.at(0, 4)).isEqualTo(DivergencePhase.CONVERGED);
        assertThat(DivergencePhase.at(4, 4)).isEqualTo(DivergencePhase.STALLED);
        assertThat(DivergencePhase.at(11, 4)).isEqualTo(DivergencePhase.STALLED);
        assertThat(DivergencePhase.at(12, 4)).isEqualTo(DivergencePhase.RECOVERING);
        assertThat(DivergencePhase.at(16, 4)).isEqualTo(DivergencePhase.QUIESCED);
        assertThat(DivergencePhase.STALLED.label(List.of("consumer-3"))).isEqualTo(
                "STALLED — consumer-3 has stopped applying changes");
        assertThat(DivergencePhase.STALLED.label(List.of("consumer-2", "consumer-3"))).isEqualTo(
                "STALLED — consumer-2 and consumer-3 have stopped applying changes");
        assertThat(DivergencePhase.RECOVERING.label(List.of("consumer-3", "consumer-4", "consumer-5"))).isEqualTo(
                "recovering — consumer-3, consumer-4 and consumer-5 are reading again");
    }
}
