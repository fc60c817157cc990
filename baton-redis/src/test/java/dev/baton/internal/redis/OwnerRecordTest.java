package dev.baton.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.lock.LockOwner;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OwnerRecordTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void member_withQuotesAndControlCharactersInNames_isValidJsonThatReadsBack() throws Exception {
    String thread = "worker \"7\" \\ tab\there\nnewline ✓";
    String member = OwnerRecord.member("c1:42", "host\"x", 1234, 1_700_000_000_000L, thread);

    JsonNode node = JSON.readTree(member);
    assertThat(node.get("id").asText()).isEqualTo("c1:42");
    assertThat(node.get("host").asText()).isEqualTo("host\"x");
    assertThat(node.get("pid").asLong()).isEqualTo(1234);
    assertThat(node.get("start").asLong()).isEqualTo(1_700_000_000_000L);
    assertThat(node.get("thread").asText()).isEqualTo(thread);
    // The acquire script appends the token by replacing the closing brace.
    assertThat(member).endsWith("}");

    String granted = member.substring(0, member.length() - 1) + ",\"token\":99,\"at\":5}";
    LockOwner owner = OwnerRecord.parse(granted, Instant.EPOCH);
    assertThat(owner.node()).isEqualTo("c1:42");
    assertThat(owner.fencingToken()).isEqualTo(99);
    assertThat(owner.thread()).isEqualTo(thread);
    assertThat(OwnerRecord.token(granted)).isEqualTo(99);
  }

  @Test
  void member_withLongThreadName_isCutTo128Characters() throws Exception {
    String member = OwnerRecord.member("c1:1", "h", 1, 1, "t".repeat(500));
    assertThat(JSON.readTree(member).get("thread").asText()).hasSize(128);
  }
}
