package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import org.junit.jupiter.api.Test;

/**
 * Broker errors become {@link FelixClientException}s with the wire's {@link ErrorCode} (one enum, shared by
 * broker and SDK); unknown and missing codes become INTERNAL; cursor errors carry the offset to use.
 */
class ErrorCodeMappingTest {

    @Test
    void everyCode_roundTripsThroughItsWireName() {
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
                new Message.ErrorMessage("stream 't1/default/x' not found", ErrorCode.NOT_FOUND.code(), 3L));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("stream 't1/default/x' not found");
        assertThat(e.availableOffset()).isEqualTo(-1);

        FelixClientException p = ClientFrames.toException(
                new Message.PublishError(4, "writer queue full", ErrorCode.OVERLOADED.code()));
        assertThat(p.code()).isEqualTo(ErrorCode.OVERLOADED);
        assertThat(p.getMessage()).contains("writer queue full");

        FelixClientException old = ClientFrames.toException(new Message.ErrorMessage("no such stream", null, null));
        assertThat(old.code()).as("a broker that predates error codes").isEqualTo(ErrorCode.INTERNAL);
        assertThat(old.getMessage()).contains("no such stream");
    }

    @Test
    void aCursorError_carriesTheOffsetToUse() {
        FelixClientException e = ClientFrames.toException(new Message.ErrorMessage(
                "offset 3 is no longer retained; the oldest is 40", ErrorCode.CURSOR_TOO_OLD.code(), 9L, 40L));
        assertThat(e.code()).isEqualTo(ErrorCode.CURSOR_TOO_OLD);
        assertThat(e.availableOffset()).isEqualTo(40);
    }
}
