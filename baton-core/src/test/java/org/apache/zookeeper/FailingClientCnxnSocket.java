package org.apache.zookeeper;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * ZooKeeper's NIO client socket, which can be told to refuse to be made a number of times: then
 * {@code new ZooKeeper(...)} throws, as it does when, say, no host of the connect string resolves
 * for a while. Named in a client's {@code zookeeper.clientCnxnSocket} property.
 */
public final class FailingClientCnxnSocket extends ClientCnxnSocketNIO {
  private static final AtomicInteger FAILURES = new AtomicInteger();

  /** The next {@code count} handles made with this socket fail to open. */
  public static void failNext(int count) {
    FAILURES.set(count);
  }

  /** How many of those failures are still to come. */
  public static int failuresLeft() {
    return FAILURES.get();
  }

  public FailingClientCnxnSocket(ZKClientConfig config) throws IOException {
    super(config);
    if (FAILURES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      close();
      throw new IOException("refused by the test");
    }
  }
}
