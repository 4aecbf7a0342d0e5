package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.wire.ErrorCodes;
import dev.felix.wire.Message;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Wire error codes become the client's {@link ErrorCode}s; unknown and missing codes become INTERNAL. */
class ErrorCodeMappingTest {

    /** Every code felix-wire defines ({@code ErrorCodes}' constants). */
    private static List<String> wireCodes() throws IllegalAccessException {
        List<String> codes = new ArrayList<>();
        for (Field f : ErrorCodes.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                codes.add((String) f.get(null));
            }
        }
        return codes;
    }

    @Test
    void everyWireCode_hasAClientCodeOfTheSameName() throws Exception {
        List<String> codes = wireCodes();
        assertThat(codes).contains("not_found", "cursor_too_old", "overloaded", "not_leader");

        for (String code : codes) {
            ErrorCode c = ErrorCode.fromCode(code);
            assertThat(c).as(code).isNotEqualTo(ErrorCode.INTERNAL);
            assertThat(c.code()).isEqualTo(code);
        }
    }

    @Test
    void everyClientCode_roundTripsThroughItsWireName() {
        for (ErrorCode c : ErrorCode.values()) {
            assertThat(ErrorCode.fromCode(c.code())).isSameAs(c);
        }
    }

    @Test
    void anUnknownOrMissingCode_isInternal_soANewerBrokersCodesNeverBreakAClient() {
        assertThat(ErrorCode.fromCode("rate_limited")).isEqualTo(ErrorCode.INTERNAL);
        assertThat(ErrorCode.fromCode("NOT_FOUND")).as("wire names are lower case").isEqualTo(ErrorCode.INTERNAL);
        assertThat(ErrorCode.fromCode("")).isEqualTo(ErrorCode.INTERNAL);
        assertThat(ErrorCode.fromCode(null)).isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void brokerErrors_becomeExceptionsWithTheCodeAndTheBrokersMessage() {
        FelixClientException e = ClientFrames.toException(
                new Message.ErrorMessage("stream 't1/default/x' not found", ErrorCodes.NOT_FOUND, 3L));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("stream 't1/default/x' not found");
        assertThat(e.availableOffset()).isEqualTo(-1);

        FelixClientException p = ClientFrames.toException(
                new Message.PublishError(4, "writer queue full", ErrorCodes.OVERLOADED));
        assertThat(p.code()).isEqualTo(ErrorCode.OVERLOADED);
        assertThat(p.getMessage()).contains("writer queue full");

        FelixClientException old = ClientFrames.toException(new Message.ErrorMessage("no such stream", null, null));
        assertThat(old.code()).as("a broker that predates error codes").isEqualTo(ErrorCode.INTERNAL);
        assertThat(old.getMessage()).contains("no such stream");
    }
}
