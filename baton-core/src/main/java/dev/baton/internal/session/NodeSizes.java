package dev.baton.internal.session;

import org.apache.jute.Record;
import org.apache.jute.BinaryOutputArchive;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.data.ACL;

/**
 * What fits in one ZooKeeper packet ({@code jute.maxbuffer}): a server refuses a bigger request by
 * dropping the connection, and a client a bigger reply, so every writer checks its data against
 * these limits before sending, and nothing is lost to an oversize write.
 */
public final class NodeSizes {
  /** The packet limit of ZooKeeper's client and server unless configured otherwise. */
  public static final int DEFAULT_MAX_PACKET = 0xfffff;
  // A getData reply around the data: reply header (xid, zxid, error) 16, data length 4, stat 68.
  public static final int READ_REPLY_OVERHEAD = 16 + 4 + 68;
  // A create request around its path, data and ACL: request header 8, path and data lengths 8,
  // flags 4.
  private static final int CREATE_OVERHEAD = 8 + 8 + 4;
  private static final int REQUEST_HEADER = 8;

  private NodeSizes() {}

  /** The packet limit of this client: its own {@code jute.maxbuffer}, else the JVM's, else the default. */
  public static int maxPacket(ClientSettings settings) {
    return settings.zkClientConfig().getInt("jute.maxbuffer", maxPacket());
  }

  /** The JVM's {@code jute.maxbuffer}, as ZooKeeper's client reads it. */
  public static int maxPacket() {
    Integer configured = Integer.getInteger("jute.maxbuffer");
    return configured == null || configured <= 0 ? DEFAULT_MAX_PACKET : configured;
  }

  /**
   * The most bytes a node at {@code serverPath} may hold so that one plain create of it, and a read
   * of it back, each fit in {@code maxPacket}.
   */
  public static int maxCreateData(String serverPath, List<ACL> acl, int maxPacket) {
    int create = CREATE_OVERHEAD + utf8Length(serverPath) + aclLength(acl);
    return maxPacket - Math.max(READ_REPLY_OVERHEAD, create);
  }

  /** An ACL list as serialized in a request. */
  public static int aclLength(List<ACL> acl) {
    int length = 4;
    for (ACL entry : acl) {
      length += 4 + 4 + utf8Length(entry.getId().getScheme()) + 4 + utf8Length(entry.getId().getId());
    }
    return length;
  }

  /**
   * The bytes {@code request} takes as a packet: the request header (xid and type, 8 bytes) and the
   * serialized record, which is what a server compares with its {@code jute.maxbuffer}.
   */
  public static int requestBytes(Record request) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      request.serialize(BinaryOutputArchive.getArchive(out), "request");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return REQUEST_HEADER + out.size();
  }

  public static int utf8Length(String text) {
    return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
  }
}
