package dev.felix.wire;

import static dev.felix.wire.TestSupport.json;
import static dev.felix.wire.TestSupport.rejects;
import static dev.felix.wire.TestSupport.rejectsJson;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.wire.Message.CacheValue;
import dev.felix.wire.Message.PublishOk;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every way a JSON payload is refused, with the stable error and a message naming the field. */
class JsonRejectionTest {
    static final String PUB = "{\"type\":\"publish\",\"tenant_id\":\"t1\",\"namespace\":\"default\",\"stream\":\"demo\",";

    static String publishWithPayload(String b64Literal) {
        return PUB + "\"payload\":" + b64Literal + "}";
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", " ", "{", "{\"type\":\"ok\"", "[]", "\"ok\"", "null", "42", "{\"type\":\"ok\"} x", "{\"type\":\"ok\"}{}",
        "{\"type\":\"ok\",}", "{'type':'ok'}", "/*c*/{\"type\":\"ok\"}", "{\"type\":\"ok\" // c\n}", "{type:\"ok\"}",
        "{\"type\":\"ok\",\"x\":NaN}", "{\"type\":\"ok\",\"x\":01}", "{\"type\":\"ok\",\"x\":\"a\nb\"}",
        "{\"type\":\"ok\",\"x\":+1}", "{\"type\":\"ok\",\"x\":[1,]}"})
    void malformedJson(String s) {
        rejectsJson(WireError.MALFORMED_JSON, s);
    }

    @Test
    void byteOrderMarkAndNulAreRejected() {
        rejects(WireError.MALFORMED_JSON, () -> WireCodec.decodeJson(TestSupport.hex("efbbbf 7b2274797065223a226f6b227d")));
        rejects(WireError.MALFORMED_JSON, () -> WireCodec.decodeJson(TestSupport.hex("7b00 2274797065223a226f6b227d")));
        // UTF-16 text would be valid UTF-8 only with NULs, so it can never be auto-detected
        rejects(WireError.MALFORMED_JSON, () -> WireCodec.decodeJson("{\"type\":\"ok\"}".getBytes(
            java.nio.charset.StandardCharsets.UTF_16LE)));
    }

    @Test
    void invalidUtf8() {
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodeJson(TestSupport.hex(
            "7b2274797065223a226572726f72222c226d657373616765223a22 ff 227d"))); // {"type":"error","message":"\xff"}
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodeJson(TestSupport.hex(
            "7b2274797065223a226572726f72222c226d657373616765223a22 c0af 227d"))); // overlong '/'
        rejects(WireError.BAD_UTF8, () -> WireCodec.decodeJson(TestSupport.hex(
            "7b2274797065223a226572726f72222c226d657373616765223a22 eda080 227d"))); // encoded surrogate
        WireException e = rejectsJson(WireError.BAD_UTF8, "{\"type\":\"error\",\"message\":\"\\ud800\"}");
        assertThat(e.getMessage()).contains("error.message");
        rejectsJson(WireError.BAD_UTF8, "{\"type\":\"error\",\"message\":\"\\udc00\\ud800\"}");
    }

    @Test
    void unknownTypeAndBadType() {
        WireException e = rejectsJson(WireError.UNKNOWN_TYPE, "{\"type\":\"nope\"}");
        assertThat(e.getMessage()).contains("nope");
        rejectsJson(WireError.UNKNOWN_TYPE, "{\"message\":\"x\",\"type\":\"Error\"}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":1}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":null}");
        rejectsJson(WireError.BAD_FIELD, "{\"a\":1,\"type\":[\"ok\"]}");
        rejectsJson(WireError.MISSING_FIELD, "{}");
        rejectsJson(WireError.MISSING_FIELD, "{\"message\":\"oops\"}");
    }

    @Test
    void duplicateKeys() {
        WireException e = rejectsJson(WireError.DUPLICATE_FIELD, "{\"type\":\"error\",\"message\":\"a\",\"message\":\"b\"}");
        assertThat(e.getMessage()).contains("message");
        rejectsJson(WireError.DUPLICATE_FIELD, "{\"type\":\"ok\",\"type\":\"ok\"}");
        rejectsJson(WireError.DUPLICATE_FIELD, "{\"x\":1,\"type\":\"ok\",\"type\":\"ok\"}");
        rejectsJson(WireError.DUPLICATE_FIELD, "{\"type\":\"ok\",\"x\":1,\"x\":2}");
        rejectsJson(WireError.DUPLICATE_FIELD, "{\"type\":\"stream_info\",\"tenant_id\":\"t\",\"namespace\":\"n\","
            + "\"stream\":\"s\",\"shards\":1,\"durable\":true,"
            + "\"shard_info\":[{\"shard\":0,\"shard\":0,\"base_offset\":0,\"next_offset\":0}]}");
        rejectsJson(WireError.DUPLICATE_FIELD, "{\"type\":\"subscribe\",\"tenant_id\":\"t\",\"namespace\":\"n\","
            + "\"stream\":\"s\",\"tenant_id\":\"u\"}");
    }

    @Test
    void missingRequiredKeys() {
        WireException e = rejectsJson(WireError.MISSING_FIELD, PUB.replaceAll(",$", "}"));
        assertThat(e.getMessage()).isEqualTo("publish.payload: required field is missing");
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"stream\":\"s\"}");
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"cache_put\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"cache\":\"c\",\"key\":\"k\",\"ttl_ms\":5}");
        // cache_value.value: the key itself is required, though its value may be null
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"cache_value\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"cache\":\"c\",\"key\":\"k\"}");
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"auth\",\"tenant_id\":\"t1\"}");
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"auth_ok\"}");
        rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"gap\",\"subscription_id\":1,\"from\":1,\"to\":2}");
        WireException nested = rejectsJson(WireError.MISSING_FIELD, "{\"type\":\"stream_list_result\",\"streams\":"
            + "[{\"tenant_id\":\"t\",\"namespace\":\"n\",\"stream\":\"s\",\"shards\":1,\"durable\":true,"
            + "\"shard_info\":[{\"shard\":0,\"base_offset\":0}]}]}");
        assertThat(nested.getMessage())
            .isEqualTo("stream_list_result.streams[0].shard_info[0].next_offset: required field is missing");
    }

    /**
     * Each cache extension type, complete: "!" marks a required key. Dropping any required key is
     * MISSING_FIELD naming it; dropping all optional keys still decodes.
     */
    static final Map<String, String[]> CACHE_EXT_TYPES = new LinkedHashMap<>();

    static {
        String scope = "!tenant_id=\"t1\"|!namespace=\"d\"|!cache=\"c\"";
        CACHE_EXT_TYPES.put("cache_delete", (scope + "|!key=\"k\"|request_id=1").split("\\|"));
        CACHE_EXT_TYPES.put("cache_create", (scope + "|backing=\"log\"|ttl_ms=1|max_entries=2|fsync=\"none\"|request_id=3")
            .split("\\|"));
        CACHE_EXT_TYPES.put("cache_describe", (scope + "|request_id=1").split("\\|"));
        CACHE_EXT_TYPES.put("cache_info", (scope + "|!backing=\"memory\"|ttl_ms=1|!max_entries=2|fsync=\"none\"|entries=0"
            + "|next_offset=5|request_id=3").split("\\|"));
        CACHE_EXT_TYPES.put("cache_watch", (scope + "|prefix=\"p\"|from_offset=4|queue_events=8|request_id=1")
            .split("\\|"));
        CACHE_EXT_TYPES.put("watch_snapshot", "!offset=4|!entries=[{\"key\":\"k\",\"value\":\"aGVsbG8=\"}]|!last=true"
            .split("\\|"));
        CACHE_EXT_TYPES.put("watch_change", "!offset=4|!key=\"k\"|!op=\"put\"|value=\"aGVsbG8=\"|expires_at_ms=9"
            .split("\\|"));
        CACHE_EXT_TYPES.put("watch_ended", "!resume_from=4|!reason=\"overflow\"|message=\"m\"".split("\\|"));
    }

    static String object(String type, List<String> pairs) {
        StringBuilder sb = new StringBuilder("{\"type\":\"").append(type).append('"');
        for (String p : pairs) {
            String kv = p.startsWith("!") ? p.substring(1) : p;
            int eq = kv.indexOf('=');
            sb.append(",\"").append(kv, 0, eq).append("\":").append(kv.substring(eq + 1));
        }
        return sb.append('}').toString();
    }

    @Test
    void missingRequiredKeysOfTheCacheExtensions() throws Exception {
        assertThat(CACHE_EXT_TYPES.keySet()).hasSize(8);
        for (Map.Entry<String, String[]> t : CACHE_EXT_TYPES.entrySet()) {
            List<String> all = List.of(t.getValue());
            Message full = json(object(t.getKey(), all));
            assertThat(full.type().wireName()).isEqualTo(t.getKey());
            assertThat(full.type().requiredCapability()).isEqualTo(Capabilities.CACHE_EXT);
            List<String> required = new ArrayList<>();
            for (String p : all) {
                if (p.startsWith("!")) {
                    required.add(p);
                }
            }
            json(object(t.getKey(), required)); // optional keys may all be left out
            for (String r : required) {
                List<String> without = new ArrayList<>(all);
                without.remove(r);
                String key = r.substring(1, r.indexOf('='));
                WireException e = rejectsJson(WireError.MISSING_FIELD, object(t.getKey(), without));
                assertThat(e.getMessage()).isEqualTo(t.getKey() + "." + key + ": required field is missing");
                // and null is not a value for it
                List<String> nulled = new ArrayList<>(all);
                nulled.set(all.indexOf(r), key + "=null");
                rejectsJson(WireError.BAD_FIELD, object(t.getKey(), nulled));
            }
        }
    }

    @Test
    void snapshotEntriesAreCheckedLikeTopLevelKeys() {
        String snap = "{\"type\":\"watch_snapshot\",\"offset\":1,\"last\":true,\"entries\":";
        WireException e = rejectsJson(WireError.MISSING_FIELD, snap + "[{\"key\":\"a\",\"value\":\"\"},{\"key\":\"b\"}]}");
        assertThat(e.getMessage()).isEqualTo("watch_snapshot.entries[1].value: required field is missing");
        e = rejectsJson(WireError.BAD_BASE64, snap + "[{\"key\":\"a\",\"value\":\"aGVsbG8\"}]}");
        assertThat(e.getMessage()).startsWith("watch_snapshot.entries[0].value: bad base64");
        rejectsJson(WireError.BAD_FIELD, snap + "[{\"key\":\"a\",\"value\":null}]}");
        rejectsJson(WireError.BAD_FIELD, snap + "[{\"key\":\"a\",\"value\":\"\",\"expires_at_ms\":-1}]}");
        rejectsJson(WireError.DUPLICATE_FIELD, snap + "[{\"key\":\"a\",\"key\":\"b\",\"value\":\"\"}]}");
        rejectsJson(WireError.BAD_FIELD, snap + "[\"aGVsbG8=\"]}");
        rejectsJson(WireError.BAD_FIELD, snap + "{}}");
        rejectsJson(WireError.BAD_FIELD, snap + "null}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"watch_snapshot\",\"offset\":1,\"entries\":[],\"last\":1}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"watch_change\",\"offset\":1,\"key\":\"k\",\"op\":7}");
        rejectsJson(WireError.BAD_BASE64, "{\"type\":\"watch_change\",\"offset\":1,\"key\":\"k\",\"op\":\"put\","
            + "\"value\":\"-_8=\"}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"cache_watch\",\"tenant_id\":\"t\",\"namespace\":\"n\","
            + "\"cache\":\"c\",\"queue_events\":4294967296}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"subscribe\",\"tenant_id\":\"t\",\"namespace\":\"n\","
            + "\"stream\":\"s\",\"incarnation\":-1}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"event_stream_hello\",\"subscription_id\":1,\"incarnation\":\"1\"}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"cache_ok\",\"request_id\":1,\"offset\":18446744073709551616}");
    }

    @Test
    void nullIsRejectedWhereAValueIsRequired() throws Exception {
        rejectsJson(WireError.BAD_FIELD, publishWithPayload("null"));
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"publish_ok\",\"request_id\":null}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"cache_put\",\"tenant_id\":\"t1\",\"namespace\":\"d\","
            + "\"cache\":\"c\",\"key\":\"k\",\"value\":null}");
        assertThat(json("{\"type\":\"cache_value\",\"tenant_id\":\"t1\",\"namespace\":\"d\",\"cache\":\"c\","
            + "\"key\":\"k\",\"value\":null}")).isEqualTo(new CacheValue("t1", "d", "c", "k", null, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "\"aGVsbG8\"",       // unpadded
        "\"aGVsbA\"",        // unpadded, 2 chars in the last quad
        "\"aGVsbG8=\\n\"",   // trailing newline (escaped)
        "\"aGVs bG8=\"",     // inner space
        "\"aGVs\\nbG8=\"",   // inner line break
        " \"aGVsbG8 =\"",    // space before padding
        "\"aGVsbG9=\"",      // non-zero trailing bits (…o=), canonical is aGVsbG8=
        "\"aB==\"",          // non-zero trailing bits with two pads
        "\"-_8=\"",          // URL-safe alphabet
        "\"a-c_\"",          // URL-safe alphabet
        "\"a===\"",          // too much padding
        "\"====\"",          // only padding
        "\"ab=c\"",          // padding in the middle
        "\"aGVsbG8=aGVsbG8=\"", // padding in the middle of a longer string
        "\"aGVsbG8==\"",     // extra pad: length not a multiple of 4
        "\"aGVs\u00e9G8=\""  // non-ASCII
    })
    void badBase64(String literal) {
        WireException e = rejectsJson(WireError.BAD_BASE64, publishWithPayload(literal));
        assertThat(e.getMessage()).startsWith("publish.payload: bad base64");
    }

    @Test
    void badBase64InAListNamesTheElement() {
        WireException e = rejectsJson(WireError.BAD_BASE64, "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\","
            + "\"namespace\":\"d\",\"stream\":\"s\",\"payloads\":[\"aGVsbG8=\",\"aGVsbG8\"]}");
        assertThat(e.getMessage()).startsWith("publish_batch.payloads[1]: bad base64");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\","
            + "\"namespace\":\"d\",\"stream\":\"s\",\"payloads\":[\"aGVsbG8=\",null]}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"publish_batch\",\"tenant_id\":\"t1\","
            + "\"namespace\":\"d\",\"stream\":\"s\",\"payloads\":\"aGVsbG8=\"}");
    }

    @Test
    void canonicalBase64EdgeCasesAreAccepted() throws Exception {
        assertThat(((Message.Publish) json(publishWithPayload("\"\""))).payload()).isEmpty();
        assertThat(((Message.Publish) json(publishWithPayload("\"AA==\""))).payload()).containsExactly(0);
        assertThat(((Message.Publish) json(publishWithPayload("\"aA==\""))).payload()).containsExactly('h');
        assertThat(((Message.Publish) json(publishWithPayload("\"//8=\""))).payload())
            .containsExactly(0xFF, 0xFF);
        assertThat(((Message.Publish) json(publishWithPayload("\"+/+/\""))).payload())
            .containsExactly(0xFB, 0xFF, 0xBF);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-0", "1.0", "7.5", "1e3", "1E0", "0.0", "18446744073709551616",
        "99999999999999999999999", "\"7\"", "true", "[7]", "{\"n\":7}"})
    void u64OutOfRangeOrNotAnInteger(String literal) {
        WireException e = rejectsJson(WireError.BAD_FIELD, "{\"type\":\"publish_ok\",\"request_id\":" + literal + "}");
        assertThat(e.getMessage()).startsWith("publish_ok.request_id: ");
    }

    @Test
    void u64AcceptsTheWholeUnsignedRange() throws Exception {
        assertThat(json("{\"type\":\"publish_ok\",\"request_id\":18446744073709551615}")).isEqualTo(new PublishOk(-1L));
        assertThat(json("{\"type\":\"publish_ok\",\"request_id\":9223372036854775808}"))
            .isEqualTo(new PublishOk(Long.MIN_VALUE));
        assertThat(json("{\"type\":\"publish_ok\",\"request_id\":9223372036854775807}"))
            .isEqualTo(new PublishOk(Long.MAX_VALUE));
        assertThat(json("{\"type\":\"publish_ok\",\"request_id\":0}")).isEqualTo(new PublishOk(0));
    }

    @Test
    void u16AndU32AreRangeChecked() throws Exception {
        assertThat(json("{\"type\":\"auth_ok\",\"server_flags\":65535}")).isEqualTo(new Message.AuthOk(65535));
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"auth_ok\",\"server_flags\":65536}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"auth\",\"tenant_id\":\"t\",\"token\":\"k\",\"client_flags\":-1}");
        assertThat(json("{\"type\":\"publish_ok\",\"request_id\":1,\"shard\":4294967295}"))
            .isEqualTo(new PublishOk(1, null, null, -1));
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"publish_ok\",\"request_id\":1,\"shard\":4294967296}");
        WireException e = rejectsJson(WireError.BAD_FIELD,
            "{\"type\":\"subscribed\",\"subscription_id\":1,\"shards\":[1,4294967296]}");
        assertThat(e.getMessage()).startsWith("subscribed.shards[1]: out of range");
    }

    @Test
    void unknownEnumValuesAndBadShapes() {
        rejectsJson(WireError.BAD_FIELD, publishWithPayload("\"aGVsbG8=\",\"ack\":\"always\""));
        String sub = "{\"type\":\"subscribe\",\"tenant_id\":\"t\",\"namespace\":\"n\",\"stream\":\"s\",";
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":\"middle\"}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":{\"offset\":1,\"x\":2}}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":{\"offs\":1}}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":{}}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":{\"offset\":-1}}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"start\":42}");
        rejectsJson(WireError.BAD_FIELD, sub + "\"queue_policy\":\"drop_everything\"}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"subscribe_cursor_error\",\"reason\":\"gone\",\"requested\":1,"
            + "\"available\":2}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"error\",\"message\":42}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"stream_create\",\"tenant_id\":\"t\",\"namespace\":\"n\","
            + "\"stream\":\"s\",\"durable\":\"yes\"}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"stream_list_result\",\"streams\":[1]}");
        rejectsJson(WireError.BAD_FIELD, "{\"type\":\"stream_list_result\",\"streams\":{}}");
    }

    @Test
    void gapRangeMustNotBeInverted() {
        WireException e = rejectsJson(WireError.BAD_FIELD,
            "{\"type\":\"gap\",\"subscription_id\":1,\"from\":10,\"to\":9,\"reason\":\"x\"}");
        assertThat(e.getMessage()).startsWith("gap.to:");
    }
}
