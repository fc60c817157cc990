package dev.baton;

import static dev.baton.DigestUsers.ALICE_ALL_OTHERS_READ;
import static dev.baton.DigestUsers.digestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.atomic.Counter;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ACLs on the nodes Baton creates, with two digest identities (alice owns, bob is another
 * identity) and a client without any: every node gets the provider's ACL; another identity is
 * refused at once with {@link NotAuthorizedException} naming the path when it would queue for,
 * delete or write what the owner created, can still read who holds a lock and what a counter
 * holds, and the owner loses nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AclTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private Baton.Builder builder() {
    return Baton.builder().connectString(cluster.connectString()).sessionTimeout(WAIT)
        .connectionTimeout(WAIT);
  }

  /** A client of {@code user} that creates its nodes readable by all, writable by itself. */
  private Baton owner(String user) {
    return closing(builder().digestAuth(user, "pw-" + user)
        .aclProvider(AclProvider.creatorAllOthersRead()).build());
  }

  /** A client of {@code user} with the default (open) ACL for what it creates. */
  private Baton identity(String user) {
    return closing(builder().digestAuth(user, "pw-" + user).build());
  }

  private Baton anonymous() {
    return closing(builder().build());
  }

  // ---- every node gets the ACL ----------------------------------------------------------------

  @Test
  void everyNodeEveryRecipeCreates_getsTheProvidersAcl() throws Exception {
    String root = "/acl-every";
    Baton alice = owner("alice");
    ReadWriteLock rw = alice.readWriteLock(root + "/locks/rw");
    try (Lease mutex = alice.mutex(root + "/locks/mutex").acquire(WAIT);
        Lease write = rw.writeLock().acquire(WAIT);
        Lease downgraded = rw.readLock().acquire(WAIT);
        Lease permit = alice.semaphore(root + "/locks/semaphore", 2).acquire(WAIT);
        Lease semaphoreMutex = alice.semaphoreMutex(root + "/locks/semaphore-mutex").acquire(WAIT)) {
      alice.counter(root + "/counters/stock").set(10);
      // A waiter's node gets it too, not only a holder's.
      CompletableFuture<Lease> waiting = alice.mutex(root + "/locks/mutex").acquireAsync();
      awaitChildren(root + "/locks/mutex", 2);

      Set<String> tree = raw.tree();
      tree.removeIf(path -> !path.startsWith(root));
      assertThat(tree).as("nodes under " + root).hasSizeGreaterThanOrEqualTo(14)
          .contains(root, root + "/locks", root + "/counters/stock", root + "/locks/semaphore/leases",
              root + "/locks/semaphore/locks");
      assertThat(raw.children(root + "/locks/rw")).as("write node and its downgrade node").hasSize(2);
      for (String path : tree) {
        assertThat(aclOf(path)).as("ACL of " + path)
            .containsExactlyInAnyOrderElementsOf(ALICE_ALL_OTHERS_READ);
      }
      waiting.cancel(true);
    }
  }

  @Test
  void provider_isAskedWithEnsemblePathsIncludingNamespace_andCanDifferByPath() throws Exception {
    Map<String, List<ACL>> asked = new ConcurrentHashMap<>();
    AclProvider configWritableByAliceOnly = path -> {
      List<ACL> acl = path.contains("/config")
          ? AclProvider.creatorAllOthersRead().aclForPath(path) : ZooDefs.Ids.OPEN_ACL_UNSAFE;
      asked.put(path, acl);
      return List.copyOf(acl); // an immutable list, as a provider may well return
    };
    Baton alice = closing(builder().digestAuth("alice", "pw-alice").namespace("/acl-ns/app")
        .aclProvider(configWritableByAliceOnly).build());
    alice.counter("/config/max-orders").set(5);
    alice.mutex("/locks/orders").acquire(WAIT).close();

    assertThat(asked.keySet()).contains("/acl-ns", "/acl-ns/app", "/acl-ns/app/config",
        "/acl-ns/app/config/max-orders", "/acl-ns/app/locks", "/acl-ns/app/locks/orders");
    assertThat(asked.keySet()).as("the mutex node: its path before the sequence number")
        .anyMatch(path -> path.matches("/acl-ns/app/locks/orders/_c_[0-9a-f-]{36}-lock-"));
    assertThat(aclOf("/acl-ns/app/config/max-orders"))
        .containsExactlyInAnyOrderElementsOf(ALICE_ALL_OTHERS_READ);
    assertThat(aclOf("/acl-ns/app/locks/orders"))
        .containsExactlyElementsOf(ZooDefs.Ids.OPEN_ACL_UNSAFE);

    // Everyone reads the config; only alice writes it.
    Baton bob = closing(builder().digestAuth("bob", "pw-bob").namespace("/acl-ns/app").build());
    assertThat(bob.counter("/config/max-orders").get()).isEqualTo(5);
    assertThatThrownBy(() -> bob.counter("/config/max-orders").set(500))
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/config/max-orders");
    assertThat(alice.counter("/config/max-orders").get()).isEqualTo(5);
    try (Lease lease = bob.mutex("/locks/orders").acquire(WAIT)) {
      assertThat(lease.isValid()).as("an open path stays open to other identities").isTrue();
    }
  }

  // ---- another identity and a lock --------------------------------------------------------

  @Test
  void otherIdentity_cannotDeleteTheHoldersNode_cannotQueue_butSeesTheHolder() throws Exception {
    String path = "/acl-lock/orders";
    Baton alice = owner("alice");
    Lease held = alice.mutex(path).acquire(WAIT);
    String node = path + "/" + raw.children(path).get(0);
    byte[] ownerData = raw.data(node);

    for (Baton other : List.of(identity("bob"), anonymous())) {
      Mutex mutex = other.mutex(path);
      // Deleting the holder's node to steal the lock: refused (DELETE is checked on the lock path).
      assertThatThrownBy(() -> other.transaction(Op.delete(node, -1)))
          .isInstanceOfSatisfying(TransactionFailedException.class,
              e -> assertThat(e.code()).isEqualTo(KeeperException.Code.NOAUTH))
          .hasMessageContaining("Not authorized").hasMessageContaining(node);
      // Queueing: refused at once, whichever way it waits; never a hang or a retry loop.
      assertRefused(() -> mutex.tryAcquire(Duration.ZERO), path);
      assertRefused(() -> mutex.acquire(WAIT), path);
      assertRefused(mutex::acquire, path);
      assertThatThrownBy(() -> mutex.acquireAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause()
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(path);
      // Writing the holder's node (a revocation request): refused.
      assertThatThrownBy(() -> other.requestRevocation(mutex))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining(node);
      // Reading: allowed.
      LockOwner holder = mutex.holder().orElseThrow();
      assertThat(holder.sessionId()).isEqualTo(alice.sessionId());
      assertThat(holder.fencingToken()).isEqualTo(held.fencingToken());
      assertThat(mutex.waiters()).isEmpty();
    }
    try (HelperZk bobRaw = HelperZk.connect(cluster.connectString())) {
      bobRaw.zk().addAuthInfo("digest", "bob:pw-bob".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> bobRaw.zk().delete(node, -1)).isInstanceOf(KeeperException.NoAuthException.class);
      assertThatThrownBy(() -> bobRaw.zk().setACL(node, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1))
          .isInstanceOf(KeeperException.NoAuthException.class);
    }

    // Nothing lost: alice still holds, with her node as it was and nobody else queued.
    assertThat(held.isValid()).isTrue();
    assertThat(raw.children(path)).containsExactly(node.substring(path.length() + 1));
    assertThat(raw.data(node)).isEqualTo(ownerData);
    held.close();
    awaitChildren(path, 0);

    // The lock path keeps alice's ACL while it exists: bob still cannot queue, alice's identity can.
    assertRefused(() -> identity("bob").mutex(path).tryAcquire(Duration.ZERO), path);
    try (Baton aliceElsewhere = owner("alice"); Lease again = aliceElsewhere.mutex(path).acquire(WAIT)) {
      assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void otherIdentity_isRefusedTheReadWriteLockAndSemaphore_andTheOwnersHoldsStay() throws Exception {
    Baton alice = owner("alice");
    Baton bob = identity("bob");
    try (Lease read = alice.readWriteLock("/acl-rw/doc").readLock().acquire(WAIT);
        Lease permit = alice.semaphore("/acl-semaphore/pool", 3).acquire(WAIT)) {
      assertRefused(() -> bob.readWriteLock("/acl-rw/doc").readLock().acquire(WAIT), "/acl-rw/doc");
      assertRefused(() -> bob.readWriteLock("/acl-rw/doc").writeLock().tryAcquire(WAIT), "/acl-rw/doc");
      assertRefused(() -> bob.semaphore("/acl-semaphore/pool", 3).acquire(WAIT), "/acl-semaphore/pool");
      assertRefused(() -> bob.semaphoreMutex("/acl-semaphore/pool").tryAcquire(WAIT), "/acl-semaphore/pool");
      assertThat(bob.readWriteLock("/acl-rw/doc").holders()).hasSize(1);
      assertThat(bob.semaphore("/acl-semaphore/pool", 3).holders()).hasSize(1);
      assertThat(read.isValid()).isTrue();
      assertThat(permit.isValid()).isTrue();
      assertThat(raw.children("/acl-rw/doc")).hasSize(1);
      assertThat(raw.children("/acl-semaphore/pool/leases")).hasSize(1);
      assertThat(raw.children("/acl-semaphore/pool/locks")).isEmpty();
    }
  }

  // ---- another identity and a counter -----------------------------------------------------

  @Test
  void otherIdentity_readsTheCounter_butItsWritesAreRefusedAndNothingIsLost() throws Exception {
    String path = "/acl-counter/stock";
    Baton alice = owner("alice");
    Counter stock = alice.counter(path);
    stock.set(10);

    for (Baton other : List.of(identity("bob"), anonymous())) {
      Counter theirs = other.counter(path);
      assertThat(theirs.get()).isEqualTo(10);
      List<Consumer<Counter>> writes = List.of(c -> c.set(0), c -> c.addAndGet(-1),
          c -> c.compareAndExchange(10, 9));
      for (Consumer<Counter> write : writes) {
        assertThatThrownBy(() -> write.accept(theirs))
            .isInstanceOfSatisfying(NotAuthorizedException.class, e -> assertThat(e.path()).isEqualTo(path))
            .hasMessageContaining("Not authorized for " + path).hasMessageContaining("identity");
      }
      assertThatThrownBy(() -> other.transaction(Op.setData(path, "0".getBytes(StandardCharsets.US_ASCII), -1)))
          .isInstanceOfSatisfying(TransactionFailedException.class, e -> {
            assertThat(e.code()).isEqualTo(KeeperException.Code.NOAUTH);
            assertThat(e.failedIndex()).isZero();
          })
          .hasMessageContaining("Not authorized for " + path);
      // Creating next to alice's node: CREATE on her parent is refused too.
      assertThatThrownBy(() -> other.counter("/acl-counter/other").set(1))
          .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/acl-counter/other");
    }
    assertThat(stock.get()).isEqualTo(10);
    assertThat(stock.addAndGet(-1)).as("the owner still writes").isEqualTo(9);
    assertThat(raw.exists("/acl-counter/other")).isFalse();
  }

  // ---- bad settings -----------------------------------------------------------------------

  @Test
  void creatorAllOthersRead_withoutAnIdentity_isRefusedAtBuildNamingDigestAuth() {
    assertThatThrownBy(() -> builder().aclProvider(AclProvider.creatorAllOthersRead()).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("digestAuth");
    List<ACL> creatorOnly = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
    assertThatThrownBy(() -> builder().acl(creatorOnly).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("digestAuth");
  }

  @Test
  void acl_emptyOrWithNull_isRejectedNamingTheArgument() {
    assertThatThrownBy(() -> builder().acl(List.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("acl");
    List<ACL> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatThrownBy(() -> builder().acl(withNull)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("acl");
    assertThatThrownBy(() -> builder().aclProvider(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("aclProvider");
  }

  @Test
  void providerThatFailsOrGivesNothing_refusesTheCreate_neverCreatesOpen() throws Exception {
    Set<String> before = raw.tree();
    for (AclProvider broken : List.<AclProvider>of(path -> null, path -> List.of(), path -> {
      throw new IllegalStateException("no ACL configured for " + path);
    })) {
      Baton client = closing(builder().aclProvider(broken).build());
      assertThatThrownBy(() -> client.mutex("/acl-broken/lock").acquire(WAIT))
          .isInstanceOf(BatonException.class).hasMessageContaining("/acl-broken")
          .hasMessageContaining("ACL");
      assertThatThrownBy(() -> client.counter("/acl-broken-counter").set(1))
          .isInstanceOf(BatonException.class).hasMessageContaining("/acl-broken-counter")
          .hasMessageContaining("ACL");
    }
    assertThat(raw.tree()).isEqualTo(before);
  }

  @Test
  void customAclForAnotherDigest_letsThatIdentityIn_andKeepsTheCreatorOut() throws Exception {
    // An operator creates lock paths that only the 'app' identity may use.
    List<ACL> appOnly = List.of(new ACL(ZooDefs.Perms.ALL, digestId("app")),
        new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    Baton operator = closing(builder().digestAuth("operator", "pw-operator").acl(appOnly).build());
    assertRefused(() -> operator.mutex("/acl-custom/lock").acquire(WAIT), "/acl-custom/lock");
    assertThat(aclOf("/acl-custom")).containsExactlyInAnyOrderElementsOf(appOnly);
    try (Lease lease = identity("app").mutex("/acl-custom/lock").acquire(WAIT)) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * The ACL of {@code path}, read by a session with alice's and app's identities: ZooKeeper shows
   * a digest's hash only to those with ADMIN on the node ("alice:x" to anyone else).
   */
  private static List<ACL> aclOf(String path) throws Exception {
    try (HelperZk auditor = HelperZk.connect(cluster.connectString())) {
      for (String user : List.of("alice", "app")) {
        auditor.zk().addAuthInfo("digest", (user + ":pw-" + user).getBytes(StandardCharsets.UTF_8));
      }
      return auditor.zk().getACL(path, new Stat());
    }
  }

  @FunctionalInterface
  private interface Attempt {
    Object run() throws Exception;
  }

  /** Refused with a clear error naming the path, well within the test's bound (no hang). */
  private void assertRefused(Attempt attempt, String path) throws Exception {
    Future<Object> running = pool(1).submit(attempt::run);
    assertThatThrownBy(() -> running.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("refused rather than waiting").isInstanceOf(ExecutionException.class).cause()
        .isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("Not authorized for").hasMessageContaining(path)
        .hasMessageContaining("identity");
  }
}
