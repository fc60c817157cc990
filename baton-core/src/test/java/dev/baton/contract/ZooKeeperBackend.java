package dev.baton.contract;

import dev.baton.Baton;
import dev.baton.Coordinator;
import dev.baton.testkit.TestCluster;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The ZooKeeper backend for the conformance suite: one embedded standalone server per test class
 * (tickTime 100 ms), clients with a 3 s session through a proxy each. ZooKeeper offers every
 * recipe and promises every case; a restarted server keeps its data and sessions.
 */
public final class ZooKeeperBackend extends ContractBackendExtension {
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  private TestCluster cluster;

  @Override
  public String name() {
    return "zookeeper";
  }

  @Override
  public Set<Feature> features() {
    return EnumSet.allOf(Feature.class);
  }

  @Override
  public Set<Promise> notPromised() {
    return EnumSet.noneOf(Promise.class);
  }

  @Override
  public Duration leaseTimeout() {
    return SESSION_TIMEOUT;
  }

  @Override
  protected void startServer() {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @Override
  protected void stopServer() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  protected InetSocketAddress serverAddress() {
    return cluster.address(0);
  }

  @Override
  protected Coordinator connect(String hostAndPort, Duration sessionTimeout) {
    return Baton.builder().connectString(hostAndPort).sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10)).build();
  }

  @Override
  public void restartServer() {
    cluster.stop(0);
    cluster.start(0);
    cluster.awaitServing(0);
  }
}
