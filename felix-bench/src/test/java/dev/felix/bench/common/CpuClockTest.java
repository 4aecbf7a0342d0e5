package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CpuClockTest {

    @Test
    void parseStat_countsFieldsFromTheLastParenthesis() {
        // comm "(my (odd) proc)" holds spaces and parentheses; utime = 250 ticks, stime = 50 ticks.
        String stat = "4242 (my (odd) proc) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 3 0 1000 0 0";
        assertThat(CpuClock.parseStat(stat)).isEqualTo(3_000_000_000L); // 300 ticks at 100/s = 3 s
        assertThatThrownBy(() -> CpuClock.parseStat("garbage")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void machineBusy_countsEverythingButIdleAndIowait() {
        // user 100, nice 1, system 20, idle 5000, iowait 7, irq 2, softirq 3, steal 4 -> 130 ticks busy
        assertThat(CpuClock.parseMachineBusy("cpu  100 1 20 5000 7 2 3 4 0 0")).isEqualTo(1_300_000_000L);
        assertThat(CpuClock.machineBusy()).isPositive();
    }

    @Test
    void ownProcess_readsTheSameWayAsAnyOther() {
        burn();
        assertThat(CpuClock.process()).isPositive();
        assertThat(CpuClock.ofProcess(ProcessHandle.current().pid())).isPositive();
        assertThat(CpuClock.threads(n -> n.equals(Thread.currentThread().getName()))).isPositive();
        assertThat(CpuClock.ofProcess(Long.MAX_VALUE)).isEqualTo(-1);
    }

    private static void burn() {
        long x = 0;
        for (int i = 0; i < 50_000_000; i++) {
            x += i * 31L;
        }
        assertThat(x).isNotZero();
    }
}
