package dev.baton.config;

import static dev.baton.DigestUsers.ALICE_ALL_OTHERS_READ;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.DigestUsers;
import dev.baton.HelperZk;
import dev.baton.NotAuthorizedException;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 6: "the config center can restrict writes to an identity while everyone reads". Alice
 * writes with {@link AclProvider#creatorAllOthersRead()}; bob (another digest identity) and a
 * client without identity read every value through their own config centers, but each of their
 * writes is refused at once with {@link NotAuthorizedException} naming the path, and nothing
 * changes on the ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigAclTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private Baton.Builder builder() {
    return Baton.builder().connectString(cluster.connectString()).sessionTimeout(WAIT).connectionTimeout(WAIT);
  }

  @Test
  void ownerWrites_othersReadButEveryWriteIsRefusedNamingThePath_andNothingChanges() throws Exception {
    Baton alice = closing(builder().digestAuth("alice", "pw-alice")
        .aclProvider(AclProvider.creatorAllOthersRead()).build());
    ConfigCenter owner = closing(ConfigCenter.open(alice, "/cfg-acl"));
    owner.create("db/url", "jdbc:one");
    owner.create("pool-size", "10");
    Map<String, String> values = Map.of("db/url", "jdbc:one", "pool-size", "10");

    Baton bob = closing(builder().digestAuth("bob", "pw-bob").build());
    Baton anonymous = closing(builder().build());
    for (Baton other : List.of(bob, anonymous)) {
      ConfigCenter theirs = closing(ConfigCenter.open(other, "/cfg-acl"));
      assertThat(theirs.snapshot()).as("everyone reads").isEqualTo(values);
      ConfigEntry url = theirs.entry("db/url").orElseThrow();

      List<Consumer<ConfigCenter>> writes = List.of(
          c -> c.update("db/url", "jdbc:evil"),
          c -> c.set("db/url", "jdbc:evil"),
          c -> c.compareAndSet("db/url", url.version(), "jdbc:evil"),
          c -> c.delete("db/url"),
          c -> c.deleteIfVersion("db/url", url.version()));
      for (Consumer<ConfigCenter> write : writes) {
        assertThatThrownBy(() -> write.accept(theirs))
            .isInstanceOfSatisfying(NotAuthorizedException.class, e -> assertThat(e.path()).isEqualTo("/cfg-acl/db/url"))
            .hasMessageContaining("Not authorized for /cfg-acl/db/url");
      }
      // New keys: CREATE is checked on the folder (or prefix) alice made.
      assertThatThrownBy(() -> theirs.create("db/user", "mallory"))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/cfg-acl/db/user");
      assertThatThrownBy(() -> theirs.set("injected", "x"))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/cfg-acl/injected");
      assertThatThrownBy(() -> theirs.create("new-folder/key", "x"))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/cfg-acl/new-folder/key");
      assertThat(theirs.snapshot()).isEqualTo(values);
    }

    assertThat(raw.tree()).filteredOn(path -> path.equals("/cfg-acl") || path.startsWith("/cfg-acl/"))
        .containsExactlyInAnyOrder("/cfg-acl", "/cfg-acl/db", "/cfg-acl/db/url", "/cfg-acl/pool-size");
    Stat stat = new Stat();
    assertThat(new String(raw.zk().getData("/cfg-acl/db/url", false, stat), StandardCharsets.UTF_8))
        .isEqualTo("jdbc:one");
    assertThat(stat.getVersion()).isZero();
    // The owner still writes, and the readers follow.
    owner.update("db/url", "jdbc:two");
    ConfigCenter bobsView = closing(ConfigCenter.open(bob, "/cfg-acl"));
    await().atMost(WAIT).until(() -> bobsView.get("db/url").equals(java.util.Optional.of("jdbc:two")));
  }

  @Test
  void keysFoldersAndPrefix_getTheProvidersAcl() throws Exception {
    Baton alice = closing(builder().digestAuth("alice", "pw-alice")
        .aclProvider(AclProvider.creatorAllOthersRead()).build());
    ConfigCenter owner = closing(ConfigCenter.open(alice, "/cfg-acl-nodes/app"));
    owner.create("db/primary/url", "jdbc:one");
    owner.set("flag", "on");

    Set<String> nodes = Set.of("/cfg-acl-nodes", "/cfg-acl-nodes/app", "/cfg-acl-nodes/app/db",
        "/cfg-acl-nodes/app/db/primary", "/cfg-acl-nodes/app/db/primary/url", "/cfg-acl-nodes/app/flag");
    assertThat(raw.tree()).filteredOn(path -> path.startsWith("/cfg-acl-nodes")).containsExactlyInAnyOrderElementsOf(nodes);
    for (String path : nodes) {
      assertThat(aclOf(path)).as("ACL of " + path).containsExactlyInAnyOrderElementsOf(ALICE_ALL_OTHERS_READ);
    }
  }

  /** The ACL of {@code path}, read with alice's identity (a digest's hash shows only to ADMIN). */
  private static List<ACL> aclOf(String path) throws Exception {
    try (HelperZk auditor = HelperZk.connect(cluster.connectString())) {
      auditor.zk().addAuthInfo("digest", "alice:pw-alice".getBytes(StandardCharsets.UTF_8));
      return auditor.zk().getACL(path, new Stat());
    }
  }

  /**
   * Only alice may do anything to the node; nobody else may even read it. Opened again after the
   * test, as alice, so that the other tests' walks of the whole tree can read it.
   */
  private void aliceOnly(String path) throws Exception {
    raw.zk().setACL(path, new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, DigestUsers.digestId("alice")))), -1);
    closing(() -> {
      try (HelperZk asAlice = HelperZk.connect(cluster.connectString())) {
        asAlice.zk().addAuthInfo("digest", "alice:pw-alice".getBytes(StandardCharsets.UTF_8));
        asAlice.zk().setACL(path, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1);
      }
    });
  }

  @Test
  void open_prefixUnreadableForThisIdentity_throwsNotAuthorizedNamingThePrefix() throws Exception {
    raw.zk().create("/cfg-refused", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    aliceOnly("/cfg-refused");
    Baton bob = closing(builder().digestAuth("bob", "pw-bob").build());

    assertThatThrownBy(() -> ConfigCenter.open(bob, "/cfg-refused"))
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/cfg-refused");
  }

  /**
   * The prefix is made unreadable for bob while bob is cut off: the load after the reconnection
   * is refused. The copy stops following and says so, where it used to try again and again.
   */
  @Test
  void reloadRefusedAfterReconnect_stopsReportsAndKeepsServingTheValuesItHas() throws Exception {
    ConfigCenter owner = closing(ConfigCenter.open(closing(builder().digestAuth("alice", "pw-alice").build()),
        "/cfg-revoked"));
    owner.create("pool-size", "10");
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton bob = closing(Baton.builder().connectString(proxy.connectString()).sessionTimeout(WAIT)
          .connectionTimeout(WAIT).digestAuth("bob", "pw-bob").build());
      ConfigCenter theirs = closing(ConfigCenter.open(bob, "/cfg-revoked"));
      assertThat(theirs.get("pool-size")).contains("10");
      CompletableFuture<RuntimeException> told = new CompletableFuture<>();
      theirs.addFailureListener(told::complete);

      proxy.cut();
      await().atMost(WAIT).until(() -> bob.connectionState() == ConnectionState.SUSPENDED);
      aliceOnly("/cfg-revoked");
      proxy.restore();

      assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
          .hasMessageContaining("/cfg-revoked");
      assertThat(theirs.failure()).containsSame(told.get());
      assertThat(theirs.isSynced()).isFalse();
      assertThatThrownBy(() -> theirs.awaitSynced(WAIT))
          .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(NotAuthorizedException.class);
      assertThat(theirs.get("pool-size")).as("still served").contains("10");
    }
  }
}
