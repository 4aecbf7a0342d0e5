package dev.felix.demos.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Broker processes started by the demos and benchmarks run on the JVM options {@code ./felix server} uses. */
class NodeProcessTest {

    @Test
    void serverJvm_isTheLaunchersChoice_hugePagesWithZgcWhereTheKernelLendsThem() {
        String unsafe = "--sun-misc-unsafe-memory-access=allow";
        String opens = "--add-opens=java.base/java.nio=ALL-UNNAMED";
        String reflect = "-Dio.netty.tryReflectionSetAccessible=true";
        assertThat(NodeProcess.serverJvm(25, true)).containsExactly("-XX:+UseZGC", "-XX:ZUncommitDelay=30",
                "-XX:+UseTransparentHugePages", unsafe, opens, reflect);
        assertThat(NodeProcess.serverJvm(25, false)).containsExactly("-XX:+UseZGC", "-XX:ZUncommitDelay=30", unsafe,
                opens, reflect);
        // Netty uses Unsafe by itself before JDK 24; after 25 the option is not known to be accepted.
        assertThat(NodeProcess.serverJvm(23, false)).doesNotContain(unsafe);
        assertThat(NodeProcess.serverJvm(26, false)).doesNotContain(unsafe);
        assertThat(NodeProcess.serverJvm(21, true)).containsExactly("-XX:+UseZGC", "-XX:ZUncommitDelay=30",
                "-XX:+ZGenerational", "-XX:+UseTransparentHugePages", opens, reflect);
        // JDK 17: G1 on anonymous memory; the launcher asks for no huge pages there either.
        assertThat(NodeProcess.serverJvm(17, true)).contains("-XX:+UseG1GC", opens, reflect)
                .doesNotContain("-XX:+UseTransparentHugePages");
        assertThat(NodeProcess.SERVER_JVM).isEqualTo(NodeProcess.serverJvm(Runtime.version().feature(),
                dev.felix.server.HeapPages.kernelAllowsForSharedMemory()));
    }
}
