package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.transport.NettyLeakDefault;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code felix} command runs without Netty's leak detection unless the JVM was started with a level, and never
 * overrides a level that was given (Netty's current property name or its older one).
 */
class NettyLeakDefaultTest {

    private ResourceLeakDetector.Level levelBefore;
    private String propertyBefore;
    private String legacyBefore;

    @BeforeEach
    void remember() {
        levelBefore = ResourceLeakDetector.getLevel();
        propertyBefore = System.getProperty(NettyLeakDefault.LEVEL);
        legacyBefore = System.getProperty(NettyLeakDefault.LEGACY_LEVEL);
        System.clearProperty(NettyLeakDefault.LEVEL);
        System.clearProperty(NettyLeakDefault.LEGACY_LEVEL);
    }

    @AfterEach
    void restore() {
        ResourceLeakDetector.setLevel(levelBefore);
        restore(NettyLeakDefault.LEVEL, propertyBefore);
        restore(NettyLeakDefault.LEGACY_LEVEL, legacyBefore);
    }

    @Test
    void withoutALevelGiven_detectionIsTurnedOff() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE); // Netty's own default
        NettyLeakDefault.apply();
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.DISABLED);
    }

    @Test
    void aLevelGivenUnderEitherName_isLeftAlone() {
        System.setProperty(NettyLeakDefault.LEVEL, "paranoid");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        NettyLeakDefault.apply();
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);

        System.clearProperty(NettyLeakDefault.LEVEL);
        System.setProperty(NettyLeakDefault.LEGACY_LEVEL, "simple");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        NettyLeakDefault.apply();
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.SIMPLE);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
