package dev.baton.discovery;

import static dev.baton.DigestUsers.digestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.NotAuthorizedException;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry's caches stand on the same sync as the public cache: a refusal retrying cannot
 * cure (the path's ACL does not let this identity read) ends the load with that error, naming
 * the path, where the registry used to log it and try again on every reconnection. A later call
 * tries afresh, once, in the caller's thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryRefusalTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** Alice may do anything; anyone else only change the ACL (so the test's raw client can open it up). */
  private static List<ACL> aliceOnly() {
    return new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, digestId("alice")),
        new ACL(ZooDefs.Perms.ADMIN, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
  }

  private Baton bob(String connectString) {
    return closing(Baton.builder().connectString(connectString).sessionTimeout(WAIT).connectionTimeout(WAIT)
        .digestAuth("bob", "pw-bob").build());
  }

  @Test
  void watch_serviceThisIdentityMayNotRead_throwsNotAuthorizedNamingThePath_andStaysRefusedAcrossReconnects()
      throws Exception {
    String base = "/refused-view";
    raw.zk().create(base, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(base + "/orders", new byte[0], aliceOnly(), CreateMode.PERSISTENT);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton bob = bob(proxy.connectString());
      ServiceRegistry registry = closing(ServiceRegistry.open(bob, base));

      assertThatThrownBy(() -> registry.watch("orders"))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base + "/orders");

      // A reconnection does not bring the refused load back: no view, no watch left behind.
      proxy.cut();
      await().atMost(WAIT).until(() -> bob.connectionState() == ConnectionState.SUSPENDED);
      proxy.restore();
      await().atMost(WAIT).until(() -> bob.connectionState().isConnected());
      assertThat(cluster.watchesBySession(0).getOrDefault(bob.sessionId(), java.util.Set.of()))
          .doesNotContain(base + "/orders");
      assertThatThrownBy(() -> registry.watch("orders"))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base + "/orders");
    }
  }

  @Test
  void services_baseThisIdentityMayNotRead_throwsNotAuthorized_andTheNextCallTriesAfresh() throws Exception {
    String base = "/refused-names";
    raw.zk().create(base, new byte[0], aliceOnly(), CreateMode.PERSISTENT);
    ServiceRegistry registry = closing(ServiceRegistry.open(bob(cluster.connectString()), base));

    assertThatThrownBy(registry::services)
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base);

    raw.zk().setACL(base, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1);
    raw.zk().create(base + "/orders", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    assertThat(registry.services()).containsExactly("orders");
    ServiceRegistry.open(closing(Baton.builder().connectString(cluster.connectString()).build()), base)
        .register(ServiceInstance.builder("billing").id("b1").address("10.0.0.1").payload(Map.of()).build());
    await().atMost(WAIT).until(() -> registry.services().contains("billing"));
  }
}
