package dev.baton.discovery;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.DigestUsers;
import dev.baton.NotAuthorizedException;
import dev.baton.TransactionFailedException;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 6: "a client can create its registry nodes with an ACL so that other identities cannot
 * delete or overwrite them". Two digest identities (alice owns, bob is another) and a client
 * without any: the other identities discover alice's instances, but cannot replace, delete or
 * overwrite them, nor register under her service; they get {@link NotAuthorizedException}
 * naming the path, and alice loses nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryAclTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Baton.Builder builder() {
    return Baton.builder().connectString(cluster.connectString()).sessionTimeout(WAIT).connectionTimeout(WAIT);
  }

  /**
   * A client of {@code user} whose nodes are readable by all and writable by itself, except the
   * base, where anyone may create a service node and nobody may delete one (the ensemble removes
   * empty ones, whatever their ACL).
   */
  private Baton owner(String user, String serverBase) {
    List<ACL> baseAcl = new ArrayList<>(List.of(
        new ACL(ZooDefs.Perms.CREATE | ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
    AclProvider provider = path -> path.equals(serverBase) ? baseAcl
        : AclProvider.creatorAllOthersRead().aclForPath(path);
    return closing(builder().digestAuth(user, "pw-" + user).aclProvider(provider).build());
  }

  private static ServiceInstance instance(String service, String id, int port) {
    return ServiceInstance.builder(service).id(id).address("10.0.0.1").port(port).payload(Map.of("zone", "a")).build();
  }

  @Test
  void otherIdentities_discoverTheOwnersInstance_butCannotReplaceDeleteOrOverwriteIt() throws Exception {
    String base = "/acl-registry";
    String path = base + "/orders/a1";
    Baton alice = owner("alice", base);
    Registration owned = ServiceRegistry.open(alice, base).register(instance("orders", "a1", 8001));
    byte[] before = raw.data(path);
    Baton bob = closing(builder().digestAuth("bob", "pw-bob").build());
    Baton anonymous = closing(builder().build());

    for (Baton other : List.of(bob, anonymous)) {
      ServiceRegistry theirs = closing(ServiceRegistry.open(other, base));
      // Reading: allowed.
      ServiceView view = theirs.watch("orders");
      assertThat(view.instances()).containsExactly(owned.instance());
      assertThat(theirs.services()).containsExactly("orders");
      // Registering the same id (which would replace alice's node): refused.
      assertThatThrownBy(() -> theirs.register(instance("orders", "a1", 9999)))
          .isInstanceOfSatisfying(NotAuthorizedException.class, e -> assertThat(e.path()).isEqualTo(path))
          .hasMessageContaining("Not authorized for " + path);
      // Registering another instance of alice's service: refused (CREATE on her service node).
      assertThatThrownBy(() -> theirs.register(instance("orders", "intruder", 9999)))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base + "/orders/intruder");
      // Deleting or overwriting her node directly: refused.
      assertThatThrownBy(() -> other.transaction(Op.delete(path, -1)))
          .isInstanceOfSatisfying(TransactionFailedException.class,
              e -> assertThat(e.code()).isEqualTo(KeeperException.Code.NOAUTH))
          .hasMessageContaining(path);
      assertThatThrownBy(() -> other.transaction(Op.setData(path, "{}".getBytes(StandardCharsets.UTF_8), -1)))
          .isInstanceOfSatisfying(TransactionFailedException.class,
              e -> assertThat(e.code()).isEqualTo(KeeperException.Code.NOAUTH))
          .hasMessageContaining(path);
    }

    // Nothing lost: alice's node as it was, hers, and still kept up and updatable by her.
    assertThat(raw.children(base + "/orders")).containsExactly("a1");
    assertThat(raw.data(path)).isEqualTo(before);
    assertThat(raw.zk().exists(path, false).getEphemeralOwner()).isEqualTo(alice.sessionId());
    assertThat(owned.isRegistered()).isTrue();
    ServiceInstance moved = owned.instance().toBuilder().port(8002).build();
    owned.update(moved);
    assertThat(ServiceRegistry.open(alice, base).instances("orders")).containsExactly(moved);
    // The refused registrations left nothing behind, and can be neither open nor half-made.
    assertThat(raw.children(base)).containsExactly("orders");
  }

  @Test
  void providersOfOneIdentity_shareTheirService_andEachIdentityKeepsItsOwnServiceUnderAnOpenBase() throws Exception {
    String base = "/acl-registry-shared";
    Baton alice = owner("alice", base);
    Baton aliceElsewhere = owner("alice", base);
    Baton bob = owner("bob", base);

    Registration first = ServiceRegistry.open(alice, base).register(instance("orders", "a1", 8001));
    Registration second = ServiceRegistry.open(aliceElsewhere, base).register(instance("orders", "a2", 8002));
    Registration billing = ServiceRegistry.open(bob, base).register(instance("billing", "b1", 9001));

    assertThat(raw.children(base + "/orders")).containsExactly("a1", "a2");
    assertThat(raw.children(base + "/billing")).containsExactly("b1");
    assertThatThrownBy(() -> ServiceRegistry.open(bob, base).register(instance("orders", "b2", 9002)))
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base + "/orders/b2");
    assertThatThrownBy(() -> ServiceRegistry.open(alice, base).register(instance("billing", "a3", 8003)))
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(base + "/billing/a3");

    // Alice's other client unregisters its own instance; the service node's ACL lets her identity delete.
    second.close();
    assertThat(raw.children(base + "/orders")).containsExactly("a1");
    first.close();
    billing.close();
    assertThat(raw.children(base + "/orders")).isEmpty();
    assertThat(raw.children(base + "/billing")).isEmpty();
  }

  /**
   * The instance's node is deleted and its service node's ACL changed to refuse bob while bob's
   * client is cut off. Once back, the client cannot make the node again: the registration stops
   * and says so, where it used to log and try again on every reconnection.
   */
  @Test
  void registration_recreateRefusedAfterReconnect_stopsAndReportsNotAuthorized() throws Exception {
    String base = "/acl-stop";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton bob = closing(Baton.builder().connectString(proxy.connectString()).sessionTimeout(WAIT)
          .connectionTimeout(WAIT).digestAuth("bob", "pw-bob").build());
      Registration registration = ServiceRegistry.open(bob, base).register(instance("orders", "b1", 9001));
      CompletableFuture<RuntimeException> told = new CompletableFuture<>();
      registration.addFailureListener(told::complete);

      proxy.cut();
      await().atMost(WAIT).until(() -> bob.connectionState() == ConnectionState.SUSPENDED);
      raw.zk().delete(base + "/orders/b1", -1);
      raw.zk().setACL(base + "/orders", new ArrayList<>(List.of(
          new ACL(ZooDefs.Perms.ALL, DigestUsers.digestId("alice")),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE))), -1);
      proxy.restore();

      assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
          .hasMessageContaining(base + "/orders");
      assertThat(registration.failure()).containsSame(told.get());
      assertThat(registration.isRegistered()).isFalse();
      assertThat(raw.children(base + "/orders")).isEmpty();
      registration.close(); // still closes quietly: nothing is left to delete
    }
  }
}
