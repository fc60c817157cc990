package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionException;
import dev.baton.NodeExistsException;
import dev.baton.RetryPolicy;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which node a registration deletes: the one this session made, even when the reply of its
 * create was lost and the registration was given up or closed meanwhile (no phantom instance
 * that nothing deletes), and never another session's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistrationOwnershipTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(15);
  /** Gives up on the first connection loss, with a pause so that retries in the background do not spin. */
  private static final RetryPolicy NO_RETRY = RetryPolicy.exponentialBackoff(Duration.ofMillis(20),
      Duration.ofMillis(200), 0);

  private static ServiceInstance instance(String id, int port) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0.1").port(port).payload(Map.of("zone", "a")).build();
  }

  private Baton impatientClient(FaultProxy proxy) {
    return closing(Baton.builder().connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(20))
        .connectionTimeout(Duration.ofSeconds(10)).retryPolicy(NO_RETRY).build());
  }

  private static void makeServiceNode(String base) throws Exception {
    raw.zk().create(base, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
    raw.zk().create(base + "/orders", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
  }

  /**
   * The create is applied, its reply lost, and the retry policy gives up: register throws, and
   * the node it made must not outlive that: once the same session is back, it is deleted.
   */
  @Test
  void registerGivingUpAfterALostCreateReply_deletesTheNodeItMadeOnceTheSessionIsBack() throws Exception {
    String base = "/own-abandon";
    String path = base + "/orders/phantom";
    makeServiceNode(base);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton baton = impatientClient(proxy);
      ServiceRegistry registry = closing(ServiceRegistry.open(baton, base));
      long sessionId = baton.sessionId();
      proxy.delay(Duration.ofMillis(1000));
      CompletableFuture<Registration> pending = CompletableFuture.supplyAsync(
          () -> registry.register(instance("phantom", 8001)), pool(1));
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> raw.exists(path));
      proxy.cut(); // the create's reply is still in the proxy's delay line: it is dropped

      assertThatThrownBy(pending::join).isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(ConnectionException.class);
      proxy.restore();
      await().atMost(WAIT).until(() -> baton.connectionState().isConnected());
      assertThat(baton.sessionId()).as("the same session: its node does not go by itself").isEqualTo(sessionId);

      await().atMost(WAIT).until(() -> !raw.exists(path));
      assertThat(registry.instances("orders")).isEmpty();
    }
  }

  /**
   * A registration making its node again (someone deleted it) while the link fails: close comes
   * while the create's reply is lost, and the node that create made is deleted once back.
   */
  @Test
  void closeDuringALostCreateReply_deletesTheNodeThatCreateMade() throws Exception {
    String base = "/own-close-lost";
    String path = base + "/orders/again";
    makeServiceNode(base);
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton baton = impatientClient(proxy);
      ServiceRegistry registry = closing(ServiceRegistry.open(baton, base));
      Registration registration = registry.register(instance("again", 8001));
      long sessionId = baton.sessionId();
      proxy.delay(Duration.ofMillis(1000));
      raw.zk().delete(path, -1);
      // The update finds the node gone and makes it again, through the slow link.
      CompletableFuture<Void> updating = CompletableFuture.runAsync(
          () -> registration.update(instance("again", 8002)), pool(1));
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> raw.exists(path));
      proxy.cut();

      try {
        registration.close();
      } catch (ConnectionException e) {
        // Told that the delete goes on in the background: what this test checks.
      }
      assertThatThrownBy(updating::join).isInstanceOf(CompletionException.class);
      proxy.restore();
      await().atMost(WAIT).until(() -> baton.connectionState().isConnected());
      assertThat(baton.sessionId()).isEqualTo(sessionId);

      await().atMost(WAIT).until(() -> !raw.exists(path));
      assertThat(registry.instances("orders")).isEmpty();
    }
  }

  // ---- another session's node -----------------------------------------------------------------

  /**
   * A restarted process that kept its id replaced this client's node: closing the old
   * registration must not delete the new owner's node (it used to delete whatever was there).
   */
  @Test
  void closeAfterAnotherSessionReplacedTheNode_leavesTheNewOwnersNode() throws Exception {
    String base = "/own-replaced-close";
    String path = base + "/orders/stable";
    Registration old = closing(ServiceRegistry.open(baton(), base)).register(instance("stable", 8001));
    Baton restarted = baton();
    Registration current = closing(ServiceRegistry.open(restarted, base)).register(instance("stable", 8002));

    old.close();

    assertThat(raw.exists(path)).as("the new owner's node").isTrue();
    assertThat(raw.zk().exists(path, false).getEphemeralOwner()).isEqualTo(restarted.sessionId());
    assertThat(current.isRegistered()).isTrue();
    assertThat(closing(ServiceRegistry.open(baton(), base)).instances("orders")).singleElement()
        .satisfies(i -> assertThat(i.port()).hasValue(8002));
  }

  /**
   * The replaced registration learns of it from the watch on its node, says why it stopped, and
   * does not take the node back (the two would replace each other without end).
   */
  @Test
  void replacedByAnotherSession_theOldRegistrationYieldsAndSaysWhy() throws Exception {
    String base = "/own-replaced-yield";
    String path = base + "/orders/stable";
    Baton oldClient = baton();
    Registration old = closing(ServiceRegistry.open(oldClient, base)).register(instance("stable", 8001));
    Baton restarted = baton();
    closing(ServiceRegistry.open(restarted, base)).register(instance("stable", 8002));

    await().atMost(WAIT).until(() -> old.failure().isPresent());
    assertThat(old.failure().get()).isInstanceOf(NodeExistsException.class).hasMessageContaining(path)
        .hasMessageContaining(Long.toHexString(restarted.sessionId()));
    assertThat(old.isRegistered()).isFalse();
    CompletableFuture<Void> update = CompletableFuture.runAsync(() -> old.update(instance("stable", 8003)), pool(1));
    assertThatThrownBy(() -> update.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("refused, not left waiting")
        .isInstanceOf(java.util.concurrent.ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseInstanceOf(NodeExistsException.class);
    // One more round trip of the old client: a take-back would have been sent before it.
    closing(ServiceRegistry.open(oldClient, base)).instances("orders");
    assertThat(raw.zk().exists(path, false).getEphemeralOwner()).isEqualTo(restarted.sessionId());
  }

  /**
   * Someone deletes the node (an old owner's unconditional delete, as Curator's unregister does,
   * or an operator): the registration is told by its watch and makes the node again.
   */
  @Test
  void ownNodeDeletedBySomeone_isMadeAgainWithoutWaitingForAReconnection() throws Exception {
    String base = "/own-deleted";
    String path = base + "/orders/kept";
    Baton baton = baton();
    Registration registration = closing(ServiceRegistry.open(baton, base)).register(instance("kept", 8001));

    raw.zk().delete(path, -1);

    await().atMost(WAIT).until(() -> raw.exists(path));
    assertThat(raw.zk().exists(path, false).getEphemeralOwner()).isEqualTo(baton.sessionId());
    await().atMost(WAIT).until(registration::isRegistered);
    assertThat(registration.failure()).isEmpty();
  }
}
