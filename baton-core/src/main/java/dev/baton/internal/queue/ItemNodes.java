package dev.baton.internal.queue;

import dev.baton.internal.session.NodeSizes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.data.ACL;

/**
 * The queue's layout on the ensemble, as Curator's {@code DistributedQueue} has it: items
 * {@code queue-<sequence>} under the queue path, ordered by name (the sequence is zero-padded to
 * ten digits, so name order is put order); claims of the same name under {@code claims} (Curator's
 * lock path, when set to that); and each item's data in Curator's item format. Pure functions.
 */
final class ItemNodes {
  static final String ITEM_PREFIX = "queue-";
  static final String CLAIMS = "claims";

  // Curator's item format: a version, then per value an item mark, its length and its bytes, then
  // an end mark.
  private static final int FORMAT_VERSION = 0x00010001;
  private static final byte ITEM_MARK = 0x01;
  private static final byte END_MARK = 0x02;
  static final int FORMAT_OVERHEAD = 4 + 1 + 4 + 1;

  // A create (as a multi's operation) around its path, data and ACL: path and data lengths 8,
  // flags 4.
  private static final int CREATE_OVERHEAD = 8 + 4;
  // A multi of two creates around them: request header 8, a header per operation and one to
  // end the list (type, done, error) 3 x 9.
  private static final int MULTI_OVERHEAD = 8 + 3 * 9;

  private ItemNodes() {}

  /**
   * The items among {@code children} that nobody has claimed and that are not in {@code
   * skip}, oldest first. Other children (the {@code claims} node, foreign nodes) take no part.
   */
  static List<String> unclaimed(Collection<String> children, Collection<String> claims, Set<String> skip) {
    Set<String> claimed = claims instanceof Set<String> set ? set : new HashSet<>(claims);
    List<String> items = new ArrayList<>();
    for (String child : children) {
      if (child.startsWith(ITEM_PREFIX) && !claimed.contains(child) && !skip.contains(child)) {
        items.add(child);
      }
    }
    items.sort(null);
    return items;
  }

  /** How many of {@code children} are items. */
  static int countItems(Collection<String> children) {
    int count = 0;
    for (String child : children) {
      if (child.startsWith(ITEM_PREFIX)) {
        count++;
      }
    }
    return count;
  }

  /** The data of an item holding {@code value}: Curator's format with one value. */
  static byte[] wrap(byte[] value) {
    return ByteBuffer.allocate(value.length + FORMAT_OVERHEAD)
        .putInt(FORMAT_VERSION).put(ITEM_MARK).putInt(value.length).put(value).put(END_MARK)
        .array();
  }

  /**
   * The values an item's data holds: those in Curator's format, or the data itself when it is not
   * in that format (a hand-written producer's raw value).
   */
  static List<byte[]> unwrap(byte[] data) {
    if (data == null) {
      return List.of(new byte[0]);
    }
    List<byte[]> values = parse(data);
    return values == null ? List.of(data) : values;
  }

  /** The values of data in Curator's format, or {@code null} if it is not in that format. */
  private static List<byte[]> parse(byte[] data) {
    ByteBuffer in = ByteBuffer.wrap(data);
    if (in.remaining() < 5 || in.getInt() != FORMAT_VERSION) {
      return null;
    }
    List<byte[]> values = new ArrayList<>(1);
    while (in.hasRemaining()) {
      byte mark = in.get();
      if (mark == END_MARK) {
        return values;
      }
      if (mark != ITEM_MARK || in.remaining() < 4) {
        return null;
      }
      int length = in.getInt();
      if (length < 0 || length > in.remaining()) {
        return null;
      }
      byte[] value = new byte[length];
      in.get(value);
      values.add(value);
    }
    return null; // no end mark
  }

  /**
   * The most bytes an item's node may hold so that it can be both written and read back within
   * {@code maxPacket}. The largest write is the {@code multi} that creates the queue path
   * ({@code pathAcl}) with the item ({@code itemAcl}) when the path is missing; the read reply
   * carries the node's stat.
   */
  static int maxNodeData(String serverPath, List<ACL> pathAcl, String serverItemPrefix, List<ACL> itemAcl,
      int maxPacket) {
    int write = MULTI_OVERHEAD
        + CREATE_OVERHEAD + NodeSizes.utf8Length(serverPath) + NodeSizes.aclLength(pathAcl)
        + CREATE_OVERHEAD + NodeSizes.utf8Length(serverItemPrefix) + NodeSizes.aclLength(itemAcl);
    return maxPacket - Math.max(NodeSizes.READ_REPLY_OVERHEAD, write);
  }

}
