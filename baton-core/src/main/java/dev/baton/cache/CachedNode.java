package dev.baton.cache;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One node as a cache last saw it: its path, data and the parts of its {@code Stat} that tell
 * versions apart. Immutable. Two are equal when they are the same version of the same node
 * (same path, creation zxid and modification zxid).
 */
public final class CachedNode {
  private final String path;
  private final byte[] data;
  private final int version;
  private final long czxid;
  private final long mzxid;
  private final long ctime;
  private final long mtime;
  private final long ephemeralOwner;

  /**
   * @param path the node's client path (without the client's namespace)
   * @param data the node's data; null for a node created without data
   */
  public CachedNode(String path, byte[] data, int version, long czxid, long mzxid, long ctime, long mtime,
      long ephemeralOwner) {
    this.path = Objects.requireNonNull(path, "path");
    this.data = data == null ? null : data.clone();
    this.version = version;
    this.czxid = czxid;
    this.mzxid = mzxid;
    this.ctime = ctime;
    this.mtime = mtime;
    this.ephemeralOwner = ephemeralOwner;
  }

  /** The node's client path ({@code /services/a/n1}), without the client's namespace. */
  public String path() {
    return path;
  }

  /** The node's data, a copy; empty for a node without data (see {@link #hasData()}). */
  public byte[] data() {
    return data == null ? new byte[0] : data.clone();
  }

  /** The data as UTF-8 text; {@code ""} for a node without data. */
  public String dataAsString() {
    return data == null ? "" : new String(data, StandardCharsets.UTF_8);
  }

  /** False for a node created with no data at all ({@code null}), as ZooKeeper tells it apart from empty data. */
  public boolean hasData() {
    return data != null;
  }

  /** The data version: 0 when created, one more with every write. */
  public int version() {
    return version;
  }

  /** The zxid that created the node: tells a node apart from one deleted and created again at its path. */
  public long czxid() {
    return czxid;
  }

  /** The zxid of the node's last write. */
  public long mzxid() {
    return mzxid;
  }

  public Instant created() {
    return Instant.ofEpochMilli(ctime);
  }

  public Instant modified() {
    return Instant.ofEpochMilli(mtime);
  }

  /** The id of the session that owns the node if it is ephemeral, else 0. */
  public long ephemeralOwner() {
    return ephemeralOwner;
  }

  public boolean isEphemeral() {
    return ephemeralOwner != 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachedNode other && path.equals(other.path) && czxid == other.czxid && mzxid == other.mzxid
        && version == other.version && Arrays.equals(data, other.data);
  }

  @Override
  public int hashCode() {
    return Objects.hash(path, czxid, mzxid, version);
  }

  @Override
  public String toString() {
    return "CachedNode[" + path + ", version " + version + ", " + (data == null ? "no data" : data.length + " bytes")
        + "]";
  }
}
