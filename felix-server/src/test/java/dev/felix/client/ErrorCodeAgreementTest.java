package dev.felix.client;

import dev.felix.wire.ErrorCode;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Every error code the broker's core can produce reaches an application as the SDK code of the same name:
 * none degrades to {@code internal} on the way (the server sends {@code core.code()} on the wire).
 */
class ErrorCodeAgreementTest {

    @Test
    void everyCoreCode_isAClientCodeOfTheSameName() {
        for (dev.felix.core.ErrorCode core : dev.felix.core.ErrorCode.values()) {
            ErrorCode client = ErrorCode.fromCode(core.code());
            assertThat(client.name()).as(core.code()).isEqualTo(core.name());
        }
    }
}
