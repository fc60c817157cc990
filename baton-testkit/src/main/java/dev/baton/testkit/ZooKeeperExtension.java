package dev.baton.testkit;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One standalone test server for a test class (sessions up to 30 s allowed), and, as {@link
 * CloseAfterEach}, the test's clients closed after each test.
 *
 * <pre>{@code
 * @RegisterExtension static final ZooKeeperExtension zk = new ZooKeeperExtension();
 * Baton baton = zk.closing(Baton.connect(zk.connectString()));
 * }</pre>
 */
public final class ZooKeeperExtension extends CloseAfterEach implements BeforeAllCallback, AfterAllCallback {
  private TestCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** The server's {@code host:port}. */
  public String connectString() {
    return cluster.connectString();
  }

  /** The server's address, for a {@link FaultProxy} in front of it. */
  public InetSocketAddress address() {
    return cluster.address(0);
  }
}
