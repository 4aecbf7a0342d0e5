package dev.felix.wire;

import static dev.felix.wire.TestSupport.buf;
import static dev.felix.wire.TestSupport.rejects;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A routed publish batch decoded with a {@link NameCache} takes the tenant, namespace and stream it read before on
 * the same stream from the cache (the same strings, no new ones per batch), and decodes exactly what a decode
 * without it would: a name whose bytes differ, even by one byte of the same length, is decoded afresh, and bad
 * UTF-8 is rejected every time.
 */
class NameCacheTest {

    private static final String PREFIX = "0000000000000007 02 00 ";
    private static final String T1_DEFAULT_DEMO = "0002 7431 0007 64656661756c74 0004 64656d6f 00000001 00000001 61";
    private static final String T1_DEFAULT_DEMP = "0002 7431 0007 64656661756c74 0004 64656d70 00000001 00000001 61";

    @Test
    void aBatchToTheSameStream_reusesTheNamesDecodedBefore() throws Exception {
        NameCache names = new NameCache();
        BinaryPublishBatch first = WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO), names).batch();
        BinaryPublishBatch second = WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO), names).batch();

        assertThat(second).isEqualTo(first).isEqualTo(WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO))
                .batch());
        assertThat(second.tenantId()).isSameAs(first.tenantId());
        assertThat(second.namespace()).isSameAs(first.namespace());
        assertThat(second.stream()).isSameAs(first.stream());
    }

    @Test
    void aNameOfTheSameLengthThatDiffersByOneByte_isDecodedAfresh() throws Exception {
        NameCache names = new NameCache();
        BinaryPublishBatch demo = WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO), names).batch();
        BinaryPublishBatch demp = WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMP), names).batch();

        assertThat(demo.stream()).isEqualTo("demo");
        assertThat(demp.stream()).isEqualTo("demp");
        assertThat(demp.tenantId()).isSameAs(demo.tenantId());
        // both stay cached: back to the first stream, its name is the cached one again
        BinaryPublishBatch again = WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO), names).batch();
        assertThat(again.stream()).isSameAs(demo.stream());
    }

    @Test
    void badUtf8_isRejectedEveryTime_andNeverCached() {
        NameCache names = new NameCache();
        String badStream = "0002 7431 0007 64656661756c74 0002 c328 00000000";
        for (int i = 0; i < 2; i++) {
            rejects(WireError.BAD_UTF8, () -> WireCodec.decodeRoutedPublishBatch(buf(PREFIX + badStream), names));
        }
    }

    @Test
    void aTruncatedName_isRejectedAsWithoutTheCache() throws Exception {
        NameCache names = new NameCache();
        WireCodec.decodeRoutedPublishBatch(buf(PREFIX + T1_DEFAULT_DEMO), names);
        // "t1" is cached; a batch that declares it but ends early must still be refused as truncated
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeRoutedPublishBatch(buf(PREFIX + "0002 74"), names));
        rejects(WireError.TRUNCATED, () -> WireCodec.decodeRoutedPublishBatch(buf(PREFIX + "0002 7431 0007 6465"),
                names));
    }
}
