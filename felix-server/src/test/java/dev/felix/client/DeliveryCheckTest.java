package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The soak's delivery checks catch what they are there for: corruption, holes, reordering. */
class DeliveryCheckTest {

    private static final StreamRef S = StreamRef.parse("t1/default/s");

    private final List<String> failures = new ArrayList<>();
    private final AtomicInteger delivered = new AtomicInteger();
    private final DeliveryCheck check = new DeliveryCheck("sub", failures::add, delivered::incrementAndGet);

    private static Event event(long offset, byte[] payload) {
        return new Event(S, 0, offset, payload);
    }

    @Test
    void payloads_roundTrip_atEverySize_andTheEmptyOneCarriesNothing() {
        for (int size : new int[] {20, 21, 100, 16_385, 65_000}) {
            byte[] p = SoakPayload.of(7, 42, size);
            assertThat(p).hasSize(size);
            assertThat(SoakPayload.check(p)).isEqualTo(new SoakPayload.Stamp(7, 42));
        }
        assertThat(SoakPayload.of(7, 42, 5)).as("rounded up to the header").hasSize(SoakPayload.HEADER);
        assertThat(SoakPayload.check(new byte[0])).isNull();
    }

    @Test
    void aFlippedByte_aTruncatedPayload_orAForeignOne_isReported() {
        byte[] flipped = SoakPayload.of(1, 1, 1_000);
        flipped[500] ^= 1;
        assertThatThrownBy(() -> SoakPayload.check(flipped)).hasMessageContaining("checksum mismatch");
        assertThatThrownBy(() -> SoakPayload.check(new byte[10])).hasMessageContaining("shorter than the header");
        assertThatThrownBy(() -> SoakPayload.check(new byte[100])).hasMessageContaining("bad magic");
    }

    @Test
    void inOrderEvents_passAndCount() {
        check.accept(event(5, SoakPayload.of(1, 0, 100)));
        check.accept(event(6, new byte[0]));
        check.accept(event(7, SoakPayload.of(1, 1, 40_000)));
        check.accept(null);
        assertThat(failures).isEmpty();
        assertThat(check.events()).isEqualTo(3);
        assertThat(delivered).hasValue(3);
    }

    @Test
    void aHoleWithoutAGapNotice_isReported_butAnAnnouncedOneIsNot() {
        check.accept(event(0, SoakPayload.of(1, 0, 100)));
        check.accept(new Gap(S, 0, 1, 9, "queue_overflow"));
        check.accept(event(10, SoakPayload.of(1, 1, 100)));
        assertThat(failures).isEmpty();
        assertThat(check.gaps()).isEqualTo(1);
        assertThat(check.gapReasons()).containsExactly(java.util.Map.entry("queue_overflow", 1L));

        check.accept(event(12, SoakPayload.of(1, 2, 100)));
        assertThat(failures).singleElement().asString().contains("offset 12 arrived where 11 was due");
    }

    @Test
    void aPublishersEventsOutOfOrder_orACorruptPayload_areReported() {
        check.accept(event(0, SoakPayload.of(1, 5, 100)));
        check.accept(event(1, SoakPayload.of(2, 0, 100))); // another publisher: its own sequence
        check.accept(event(2, SoakPayload.of(1, 4, 100)));
        byte[] bad = SoakPayload.of(1, 6, 100);
        bad[bad.length - 1] ^= 0x40;
        check.accept(event(3, bad));
        assertThat(failures).hasSize(2);
        assertThat(failures.get(0)).contains("publisher 1's seq 4 at offset 2 after its seq 5");
        assertThat(failures.get(1)).contains("offset 3", "checksum mismatch");
    }

    @Test
    void soakSeconds_refusesWhatItCannotRun_namingTheProperty() {
        String before = System.getProperty(ChurnLeakSoakTest.SECONDS_PROPERTY);
        try {
            System.setProperty(ChurnLeakSoakTest.SECONDS_PROPERTY, "ten");
            assertThatThrownBy(ChurnLeakSoakTest::soakSeconds).hasMessageContaining("felix.soak.seconds")
                    .hasMessageContaining("whole number");
            System.setProperty(ChurnLeakSoakTest.SECONDS_PROPERTY, "3600");
            assertThatThrownBy(ChurnLeakSoakTest::soakSeconds).hasMessageContaining("1..840")
                    .hasMessageContaining("forkedProcessTimeoutInSeconds");
            System.setProperty(ChurnLeakSoakTest.SECONDS_PROPERTY, "600");
            assertThat(ChurnLeakSoakTest.soakSeconds()).isEqualTo(600);
        } finally {
            if (before == null) {
                System.clearProperty(ChurnLeakSoakTest.SECONDS_PROPERTY);
            } else {
                System.setProperty(ChurnLeakSoakTest.SECONDS_PROPERTY, before);
            }
        }
    }
}
