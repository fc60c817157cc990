package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.zookeeper.data.Stat;

/**
 * The faults of issue 3 as scenarios any lock-like recipe can be put through: the connection of
 * a holder or of a waiter cut (briefly, or for longer than its session), and its session expired
 * while holding or while waiting. A recipe's test class describes the lock ({@link LockUnderTest})
 * and who takes it ({@link Taker}); each scenario ends once every client is closed by checking
 * that no node is left under the lock's paths.
 *
 * <p>A client behind a {@link FaultProxy} is the one hurt; every other client talks to the
 * server directly. Expiry is forced as in {@link MutexFaultTest}: the proxy black-holes the link
 * of a client with a 1 s session until the ensemble ends the session.
 */
abstract class LockFaultTestSupport extends ClusterTestSupport {
  static final Duration WAIT = Duration.ofSeconds(20);
  /** Long enough for a test to see a session end, short enough to keep the test fast. */
  static final Duration SHORT_SESSION = Duration.ofSeconds(1);
  /** Outlasts any short cut of these tests, reconnection included, with room to spare. */
  static final Duration LONG_SESSION = Duration.ofSeconds(20);

  /** How the link of the hurt client is broken. */
  enum Fault {
    /** Connections closed, new ones refused: the client knows at once, the server too. */
    CUT,
    /** Bytes dropped, nobody told: both sides find out by their timeouts. */
    BLACKHOLE;

    void apply(FaultProxy proxy) {
      if (this == CUT) {
        proxy.cut();
      } else {
        proxy.blackhole();
      }
    }
  }

  /**
   * The lock under test: the parents of its nodes (one per mutex path; {@code locks} and {@code
   * leases} of a semaphore) and the rule its holders must follow.
   */
  record LockUnderTest(List<String> parents, Supplier<MutualExclusionChecker> rule) {
    static LockUnderTest exclusive(String... parents) {
      return new LockUnderTest(List.of(parents), MutualExclusionChecker::exclusive);
    }

    static LockUnderTest semaphore(String path, int permits) {
      return new LockUnderTest(List.of(path + "/locks", path + "/leases"),
          () -> MutualExclusionChecker.withCapacity(permits));
    }
  }

  /**
   * One kind of taker: how it asks for the lock, whether it holds it shared (a reader), how many
   * permits one lease of it holds, and how many nodes it keeps on the server while it waits and
   * while it holds.
   */
  record Taker(String name, Function<Baton, CompletableFuture<? extends Lease>> acquire,
      boolean shared, int permits, int queuedNodes, int heldNodes) {

    static Taker exclusive(String name, Function<Baton, CompletableFuture<? extends Lease>> acquire) {
      return new Taker(name, acquire, false, 1, 1, 1);
    }

    static Taker shared(String name, Function<Baton, CompletableFuture<? extends Lease>> acquire) {
      return new Taker(name, acquire, true, 1, 1, 1);
    }

    /** Holds {@code count} permits, one lease node each. */
    Taker permits(int count) {
      return new Taker(name, acquire, shared, count, queuedNodes, count);
    }

    Taker queuedNodes(int count) {
      return new Taker(name, acquire, shared, permits, count, heldNodes);
    }

    Taker heldNodes(int count) {
      return new Taker(name, acquire, shared, permits, queuedNodes, count);
    }

    /** Records entry into the critical section: one section per permit the lease holds. */
    List<MutualExclusionChecker.Section> enter(MutualExclusionChecker checker, Lease lease) {
      List<MutualExclusionChecker.Section> sections = new ArrayList<>();
      for (int i = 0; i < permits; i++) {
        sections.add(shared ? checker.enterShared(name, lease.fencingToken()) : checker.enter(name, lease.fencingToken()));
      }
      return sections;
    }
  }

  /**
   * A queued acquisition whose grant is recorded in the checker the moment it happens. {@link
   * #future} completes once the grant is recorded, so whoever waits on it sees the record.
   */
  static final class Queued {
    final CompletableFuture<Lease> future;
    final List<MutualExclusionChecker.Section> sections = new CopyOnWriteArrayList<>();
    volatile long grantedAt;

    private Queued(Taker taker, Baton client, MutualExclusionChecker checker, List<String> grantOrder) {
      this.future = taker.acquire().apply(client).thenApply(lease -> {
        grantedAt = System.nanoTime();
        sections.addAll(taker.enter(checker, lease));
        grantOrder.add(taker.name());
        return lease;
      });
    }

    Lease lease() throws Exception {
      return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    void exit() {
      sections.forEach(MutualExclusionChecker.Section::exit);
    }
  }

  /**
   * The states a lease reported, each with the instant it was told, recorded on the thread of the
   * change. With {@code warnedEnds} the sections end at the first state other than HELD: from then
   * on the holder must not rely on the lock.
   */
  static final class Told {
    final List<LeaseState> states = new CopyOnWriteArrayList<>();
    final Map<LeaseState, Long> firstAt = new ConcurrentHashMap<>();

    static Told watch(Lease lease, List<MutualExclusionChecker.Section> warnedEnds) {
      Told told = new Told();
      lease.addListener((l, state) -> {
        told.firstAt.putIfAbsent(state, System.nanoTime());
        told.states.add(state);
        if (state != LeaseState.HELD) {
          warnedEnds.forEach(MutualExclusionChecker.Section::lost);
        }
      }, Runnable::run);
      return told;
    }
  }

  static <T> T get(CompletableFuture<T> future) throws Exception {
    return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  static Lease take(Taker taker, Baton client) throws Exception {
    return get(taker.acquire().apply(client));
  }

  /** The nodes under the lock's parents that the session {@code sessionId} owns. */
  static List<String> nodesOf(LockUnderTest lock, long sessionId) throws Exception {
    List<String> owned = new ArrayList<>();
    for (String parent : lock.parents()) {
      for (String child : raw.children(parent)) {
        Stat stat = raw.zk().exists(parent + "/" + child, false);
        if (stat != null && stat.getEphemeralOwner() == sessionId) {
          owned.add(parent + "/" + child);
        }
      }
    }
    return owned;
  }

  /** Every node under the lock's parents with its owner session, for failure messages. */
  static String describeNodes(LockUnderTest lock) throws Exception {
    StringBuilder nodes = new StringBuilder();
    for (String parent : lock.parents()) {
      for (String child : raw.children(parent)) {
        Stat stat = raw.zk().exists(parent + "/" + child, false);
        nodes.append("\n  ").append(parent).append('/').append(child)
            .append(stat == null ? " (gone)" : " of session 0x" + Long.toHexString(stat.getEphemeralOwner()));
      }
    }
    return nodes.length() == 0 ? " none" : nodes.toString();
  }

  static void awaitNodesOf(LockUnderTest lock, Baton client, int count) {
    long sessionId = client.sessionId();
    await().atMost(WAIT).untilAsserted(() -> assertThat(nodesOf(lock, sessionId))
        .as("nodes of session 0x%s; all nodes:%s", Long.toHexString(sessionId), describeNodes(lock)).hasSize(count));
  }

  static void awaitNoNodes(LockUnderTest lock) {
    await().atMost(WAIT).untilAsserted(() -> {
      for (String parent : lock.parents()) {
        assertThat(raw.children(parent)).as("nodes under " + parent).isEmpty();
      }
    });
  }

  private static void closeAll(List<? extends AutoCloseable> resources) throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
  }

  // ---- the scenarios ----------------------------------------------------------------------------

  /**
   * The holder's link breaks ({@code fault}) for longer than its 1 s session while {@code waiter}
   * waits on another client. The holder must hear SUSPECT and then LOST before the waiter is
   * granted; the history must satisfy the lock's rule, {@code bystanders} (holding from the start
   * on a third client) included. Once the link is back the holder's client has a new session and
   * the lease stays LOST.
   */
  void holderCutOffPastItsSession(LockUnderTest lock, Fault fault, Taker holder, Taker waiter,
      Taker... bystanders) throws Exception {
    MutualExclusionChecker checker = lock.rule().get();
    Baton others = baton();
    List<Lease> standing = new ArrayList<>();
    for (Taker bystander : bystanders) {
      Lease lease = take(bystander, others);
      bystander.enter(checker, lease);
      standing.add(lease);
    }
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton holderClient = baton(proxy.connectString(), SHORT_SESSION);
    long holderSession = holderClient.sessionId();
    Lease held = take(holder, holderClient);
    List<MutualExclusionChecker.Section> holding = holder.enter(checker, held);
    Told told = Told.watch(held, holding);
    Baton waiterClient = baton();
    Queued waiting = new Queued(waiter, waiterClient, checker, new CopyOnWriteArrayList<>());
    awaitNodesOf(lock, waiterClient, waiter.queuedNodes());
    assertThat(waiting.future).isNotDone();

    fault.apply(proxy);
    Lease next = waiting.lease();

    assertThat(told.states).as("states told to the holder").startsWith(LeaseState.SUSPECT).contains(LeaseState.LOST);
    assertThat(told.firstAt.get(LeaseState.SUSPECT)).as("SUSPECT told before the waiter was granted")
        .isLessThan(waiting.grantedAt);
    assertThat(told.firstAt.get(LeaseState.LOST)).as("LOST told before the waiter was granted")
        .isLessThan(waiting.grantedAt);
    assertThat(held.isValid()).isFalse();
    assertThat(next.isValid()).isTrue();
    checker.assertNoViolations();

    proxy.restore();
    await().atMost(WAIT).until(() -> holderClient.connectionState() == ConnectionState.RECONNECTED
        && holderClient.sessionId() != holderSession && holderClient.sessionId() != 0);
    assertThat(held.state()).isEqualTo(LeaseState.LOST);
    assertThat(nodesOf(lock, holderClient.sessionId())).as("nodes of the holder's new session").isEmpty();
    held.close();
    holding.forEach(MutualExclusionChecker.Section::exit);
    next.close();
    waiting.exit();
    closeAll(standing);
    closeAll(List.of(holderClient, waiterClient, others));
    awaitNoNodes(lock);
  }

  /**
   * The holder's link is cut briefly, well within its session: the lease turns SUSPECT, then
   * HELD again on the same session, and {@code intruder}, queued on another client meanwhile, gets
   * the lock only once the holder releases it.
   */
  void holderCutOffBriefly(LockUnderTest lock, Taker holder, Taker intruder, Taker... bystanders)
      throws Exception {
    MutualExclusionChecker checker = lock.rule().get();
    Baton others = baton();
    List<Lease> standing = new ArrayList<>();
    for (Taker bystander : bystanders) {
      Lease lease = take(bystander, others);
      bystander.enter(checker, lease);
      standing.add(lease);
    }
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton holderClient = baton(proxy.connectString(), LONG_SESSION);
    long session = holderClient.sessionId();
    Lease held = take(holder, holderClient);
    // The section stays valid across the cut: the lock was never free, whatever the holder heard.
    List<MutualExclusionChecker.Section> holding = holder.enter(checker, held);
    Told told = Told.watch(held, List.of());
    Baton intruderClient = baton();
    List<String> grantOrder = new CopyOnWriteArrayList<>();
    Queued intruding = new Queued(intruder, intruderClient, checker, grantOrder);
    awaitNodesOf(lock, intruderClient, intruder.queuedNodes());

    proxy.cut();
    await().atMost(WAIT).until(() -> told.states.contains(LeaseState.SUSPECT));
    assertThat(held.state()).isEqualTo(LeaseState.SUSPECT);
    assertThat(held.isValid()).isFalse();
    proxy.restore();
    await().atMost(WAIT).until(() -> held.state() == LeaseState.HELD);

    assertThat(told.states).as("states told to the holder").containsExactly(LeaseState.SUSPECT, LeaseState.HELD);
    assertThat(held.isValid()).isTrue();
    assertThat(holderClient.sessionId()).as("the same session").isEqualTo(session);
    assertThat(nodesOf(lock, session)).as("the holder's nodes").hasSize(holder.heldNodes());
    assertThat(grantOrder).as("granted while the holder held").isEmpty();

    holding.forEach(MutualExclusionChecker.Section::exit);
    held.close();
    Lease after = intruding.lease();
    assertThat(after.isValid()).isTrue();
    after.close();
    intruding.exit();
    checker.assertNoViolations();
    closeAll(standing);
    closeAll(List.of(holderClient, intruderClient, others));
    awaitNoNodes(lock);
  }

  /**
   * The waiter's link is cut, and the holder releases while it is cut off. The waiter keeps its
   * nodes (its place) on its live session, and is granted once the link is back, ahead of {@code
   * later}, who queued behind it on another client and must wait until the waiter releases.
   */
  void waiterCutOff(LockUnderTest lock, Taker holder, Taker waiter, Taker later) throws Exception {
    MutualExclusionChecker checker = lock.rule().get();
    Baton holderClient = baton();
    Lease held = take(holder, holderClient);
    List<MutualExclusionChecker.Section> holding = holder.enter(checker, held);
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton waiterClient = baton(proxy.connectString(), LONG_SESSION);
    long session = waiterClient.sessionId();
    List<String> grantOrder = new CopyOnWriteArrayList<>();
    Queued waiting = new Queued(waiter, waiterClient, checker, grantOrder);
    awaitNodesOf(lock, waiterClient, waiter.queuedNodes());
    Baton laterClient = baton();
    Queued behind = new Queued(later, laterClient, checker, grantOrder);
    awaitNodesOf(lock, laterClient, later.queuedNodes());
    List<String> place = nodesOf(lock, session);

    proxy.cut();
    await().atMost(WAIT).until(() -> waiterClient.connectionState() == ConnectionState.SUSPENDED);
    holding.forEach(MutualExclusionChecker.Section::exit);
    held.close();
    awaitNodesOf(lock, holderClient, 0); // released while the waiter cannot hear of it
    assertThat(nodesOf(lock, session)).as("the cut-off waiter's nodes").isEqualTo(place);
    proxy.restore();

    Lease granted = waiting.lease();
    assertThat(granted.isValid()).isTrue();
    assertThat(waiterClient.sessionId()).as("the same session").isEqualTo(session);
    assertThat(grantOrder).containsExactly(waiter.name());
    waiting.exit();
    granted.close();
    Lease afterwards = behind.lease();
    assertThat(grantOrder).containsExactly(waiter.name(), later.name());
    behind.exit();
    afterwards.close();
    checker.assertNoViolations();
    closeAll(List.of(holderClient, waiterClient, laterClient));
    awaitNoNodes(lock);
  }

  /**
   * The holder's session expires (its link black-holed past its 1 s session): it is told SUSPECT
   * and LOST before {@code waiter} gets in. Same as {@link #holderCutOffPastItsSession} with the
   * server left in the dark too.
   */
  void holderSessionExpires(LockUnderTest lock, Taker holder, Taker waiter, Taker... bystanders) throws Exception {
    holderCutOffPastItsSession(lock, Fault.BLACKHOLE, holder, waiter, bystanders);
  }

  /**
   * The waiter's session expires while it waits: its nodes go with the session. It must queue
   * again, with {@code requeuedNodes} nodes of the client's new session, and be granted once the
   * holder releases, with a lease of the new session.
   */
  void waiterSessionExpires(LockUnderTest lock, Taker holder, Taker waiter, int requeuedNodes) throws Exception {
    MutualExclusionChecker checker = lock.rule().get();
    Baton holderClient = baton();
    Lease held = take(holder, holderClient);
    List<MutualExclusionChecker.Section> holding = holder.enter(checker, held);
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton waiterClient = baton(proxy.connectString(), SHORT_SESSION);
    long oldSession = waiterClient.sessionId();
    Queued waiting = new Queued(waiter, waiterClient, checker, new CopyOnWriteArrayList<>());
    awaitNodesOf(lock, waiterClient, waiter.queuedNodes());

    proxy.blackhole();
    await().atMost(WAIT).untilAsserted(() -> assertThat(nodesOf(lock, oldSession)).isEmpty()); // ended on the server
    proxy.restore();
    // The id reads 0 while the new session is being set up.
    await().atMost(WAIT).until(() -> waiterClient.sessionId() != oldSession && waiterClient.sessionId() != 0);
    assertThat(waiting.future).as("the waiter, after its session expired").isNotDone();
    awaitNodesOf(lock, waiterClient, requeuedNodes);
    assertThat(waiting.future).isNotDone();

    holding.forEach(MutualExclusionChecker.Section::exit);
    held.close();
    Lease granted = waiting.lease();
    assertThat(granted.isValid()).isTrue();
    assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
    // A semaphore deletes its turn on the locks mutex without waiting for the reply: another
    // client may still list it for a moment after the grant.
    await().atMost(WAIT).untilAsserted(() -> assertThat(nodesOf(lock, waiterClient.sessionId()))
        .as("nodes of the new session").hasSize(waiter.heldNodes()));
    granted.close();
    waiting.exit();
    checker.assertNoViolations();
    closeAll(List.of(holderClient, waiterClient));
    awaitNoNodes(lock);
  }
}
