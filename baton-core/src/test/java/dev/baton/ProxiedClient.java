package dev.baton;

import dev.baton.testkit.FaultProxyGroup;
import dev.baton.testkit.TestCluster;
import java.time.Duration;

/**
 * A client of a chaos run behind proxies of its own, one per server, so that its link alone can
 * be cut, silenced, slowed or killed: for the chaos tests of the modules above baton-core (the
 * config center's, the registry's), which reach it through baton-core's test jar.
 */
public final class ProxiedClient implements AutoCloseable {
  public final String name;
  public final FaultProxyGroup proxies;
  public final Baton baton;

  public ProxiedClient(String name, TestCluster cluster, Duration sessionTimeout) {
    this.name = name;
    this.proxies = FaultProxyGroup.forCluster(cluster);
    try {
      this.baton = Baton.builder().connectString(proxies.connectString()).sessionTimeout(sessionTimeout)
          .connectionTimeout(Duration.ofSeconds(30)).build();
    } catch (RuntimeException e) {
      proxies.close();
      throw e;
    }
  }

  /** Kills it as a crash would: its link goes silent for good; nothing is closed. */
  public void kill() {
    proxies.blackhole();
  }

  /** Closes the proxies first, so that a killed client's close ends at once on a refused connection. */
  @Override
  public void close() {
    proxies.close();
    baton.close();
  }

  @Override
  public String toString() {
    return name;
  }
}
