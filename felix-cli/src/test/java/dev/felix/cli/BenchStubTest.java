package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * felix.jar carries no benchmark: {@code felix --help} still lists {@code bench}, and {@code bench ...} run
 * from felix.jar itself (not through the {@code ./felix} launcher, which runs felix-bench.jar for it) says
 * where the benchmarks are, with exit status 2.
 */
class BenchStubTest {

    @Test
    void felixHelp_stillListsBench() {
        String[] out = run("--help");
        assertThat(out[0]).containsPattern("(?m)^  bench +Benchmarks: latency, throughput, compare, watch, storage,");
    }

    @Test
    void benchFromFelixJar_pointsAtTheLauncherAndTheBenchJar() {
        String[] r = run("bench", "latency", "--quick");
        assertThat(r[2]).isEqualTo("2");
        assertThat(r[1]).contains("./felix bench latency --quick", "felix-bench/target/felix-bench.jar");
    }

    @Test
    void felixJarsClasspath_holdsNoBenchmarkCode() {
        // The test classpath of felix-cli is what felix.jar is built from (plus test libraries).
        for (String absent : new String[] {"dev.felix.bench.cli.BenchMain", "org.openjdk.jmh.runner.Runner",
                "io.nats.client.Nats", "redis.clients.jedis.Jedis", "io.grpc.ManagedChannel"}) {
            assertThat(loadable(absent)).as(absent).isFalse();
        }
    }

    private static boolean loadable(String name) {
        try {
            Class.forName(name, false, BenchStubTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** {stdout, stderr, exit code}. */
    private static String[] run(String... args) {
        InProcessCli.Result r = InProcessCli.run(args);
        return new String[] {r.out(), r.err(), Integer.toString(r.code())};
    }
}
