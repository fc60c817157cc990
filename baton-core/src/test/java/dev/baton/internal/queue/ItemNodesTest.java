package dev.baton.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/** The queue's layout decisions, without a server: which items to claim, the item format, the size limit. */
class ItemNodesTest {

  @Test
  void unclaimed_areTheItemsNobodyClaimed_oldestFirst_ignoringOtherChildren() {
    List<String> children = List.of("queue-0000000012", "claims", "queue-0000000003", "member-0000000001",
        "queue-0000000007", "queue-0000000010");
    List<String> claims = List.of("queue-0000000007");
    assertThat(ItemNodes.unclaimed(children, claims, Set.of("queue-0000000010")))
        .containsExactly("queue-0000000003", "queue-0000000012");
    assertThat(ItemNodes.countItems(children)).isEqualTo(4);
  }

  @Test
  void wrap_writesCuratorsFormat_andUnwrapReadsItBack() {
    byte[] value = "hello".getBytes(StandardCharsets.UTF_8);
    byte[] data = ItemNodes.wrap(value);
    // Curator's ItemSerializer: version 0x00010001, item mark 1, length, bytes, end mark 2.
    ByteBuffer expected = ByteBuffer.allocate(15).putInt(0x00010001).put((byte) 1).putInt(5).put(value).put((byte) 2);
    assertThat(data).isEqualTo(expected.array());
    assertThat(ItemNodes.unwrap(data)).singleElement().isEqualTo(value);
  }

  @Test
  void unwrap_readsSeveralValues_andTakesRawDataAsOneValue() {
    ByteBuffer multi = ByteBuffer.allocate(4 + 2 * 6 + 1).putInt(0x00010001)
        .put((byte) 1).putInt(1).put((byte) 'a').put((byte) 1).putInt(1).put((byte) 'b').put((byte) 2);
    assertThat(ItemNodes.unwrap(multi.array())).hasSize(2);
    byte[] raw = "plain text".getBytes(StandardCharsets.UTF_8);
    assertThat(ItemNodes.unwrap(raw)).singleElement().isEqualTo(raw);
    byte[] truncated = ItemNodes.wrap(raw);
    truncated = java.util.Arrays.copyOf(truncated, truncated.length - 1); // no end mark
    assertThat(ItemNodes.unwrap(truncated)).singleElement().isEqualTo(truncated);
    assertThat(ItemNodes.unwrap(new byte[0])).singleElement().isEqualTo(new byte[0]);
  }

  @Test
  void maxNodeData_leavesRoomForTheLargestRequestAndReply() {
    // Short paths: the multi creating path and item (35 + 12 + 2 + 27 + 12 + 9 + 27 = 124) is
    // larger than a read reply's 88 bytes around the data.
    assertThat(ItemNodes.maxNodeData("/q", ZooDefs.Ids.OPEN_ACL_UNSAFE, "/q/queue-", ZooDefs.Ids.OPEN_ACL_UNSAFE,
        0xfffff)).isEqualTo(0xfffff - 124);
    String longPath = "/" + "x".repeat(300);
    assertThat(ItemNodes.maxNodeData(longPath, ZooDefs.Ids.OPEN_ACL_UNSAFE, longPath + "/queue-",
        ZooDefs.Ids.OPEN_ACL_UNSAFE, 0xfffff)).isEqualTo(0xfffff - (35 + 12 + 301 + 27 + 12 + 308 + 27));
  }
}
