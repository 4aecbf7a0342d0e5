package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the broker reports about its heap's pages, from the collector, the JVM flag and the kernel's setting. */
class HeapPagesTest {

    @Test
    void theSelectedValueIsTheBracketedWord() {
        assertThat(HeapPages.selected("always within_size [advise] never deny force\n")).contains("advise");
        assertThat(HeapPages.selected("[always] madvise never")).contains("always");
        assertThat(HeapPages.selected("madvise\n")).contains("madvise");
        assertThat(HeapPages.selected("  \n")).isEmpty();
    }

    @Test
    void zgcIsOnHugePages_whenAskedAndTheKernelLendsThemToSharedMemory() {
        assertThat(HeapPages.report(true, true, Optional.of("advise")))
                .isEqualTo(new HeapPages.Report(true, "2 MiB transparent huge pages"));
        assertThat(HeapPages.report(true, true, Optional.of("within_size")).huge()).isTrue();
        assertThat(HeapPages.report(true, true, Optional.of("always")).huge()).isTrue();
    }

    @Test
    void otherwiseTheReportSaysWhichSettingKeepsThemAway() {
        // The JVM keeps its flag on when the kernel refuses: the kernel's word decides.
        HeapPages.Report refused = HeapPages.report(true, true, Optional.of("never"));
        assertThat(refused.huge()).isFalse();
        assertThat(refused.text()).isEqualTo("4 KiB pages (the kernel lends none to shared memory: "
                + HeapPages.SHMEM_SETTING + " is never)");
        assertThat(HeapPages.report(true, false, Optional.of("advise")))
                .isEqualTo(new HeapPages.Report(false, "4 KiB pages (huge pages not asked for: -XX:+UseTransparentHugePages)"));
        assertThat(HeapPages.report(true, true, Optional.empty()).text())
                .isEqualTo("4 KiB pages (the kernel has no transparent huge pages here)");
    }

    @Test
    void anotherCollectorsHeapIsAnonymousMemory_underTheOtherSetting() {
        // "madvise" is what anonymous memory allows; "advise" is the shared-memory word.
        assertThat(HeapPages.report(false, true, Optional.of("madvise")).huge()).isTrue();
        HeapPages.Report never = HeapPages.report(false, true, Optional.of("never"));
        assertThat(never.huge()).isFalse();
        assertThat(never.text()).contains(HeapPages.ANON_SETTING.toString()).contains("lends none to the heap");
        assertThat(HeapPages.report(false, true, Optional.of("advise")).huge()).isFalse();
    }
}
