package dev.baton.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.FencingTokens;
import dev.baton.testkit.MutualExclusionChecker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's leader latch and selector beside Curator's on the same paths: one queue, one leader,
 * each library reading the other's participant ids, and one leader at a time across hand-overs
 * in both directions (checked with the testkit's checker, tokens from the leaders' nodes).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderCuratorInteropTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String LATCH_NODE = "_c_[0-9a-f-]{36}-latch-\\d{10}";
  private static final String LOCK_NODE = "_c_[0-9a-f-]{36}-lock-\\d{10}";

  private final MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
  private final AtomicLong highestToken = new AtomicLong(Long.MIN_VALUE);
  private final List<String> regainErrors = new CopyOnWriteArrayList<>();

  private CuratorFramework curator() throws InterruptedException {
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(
        cluster.connectString(), 10_000, 10_000, new ExponentialBackoffRetry(50, 5)));
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  /** The token Baton would give a node: from its creating zxid. */
  private static long tokenOf(String nodePath) throws Exception {
    return FencingTokens.ofNode(raw.czxid(nodePath));
  }

  private static List<String> ids(java.util.Collection<Participant> participants) {
    return participants.stream().map(Participant::getId).toList();
  }

  /** A Curator latch whose leadership is entered in the checker; its section ends in {@link #closeCurator}. */
  private final class CuratorParticipant implements LeaderLatchListener {
    final org.apache.curator.framework.recipes.leader.LeaderLatch latch;
    final String id;
    volatile MutualExclusionChecker.Section section;
    volatile long token;

    CuratorParticipant(CuratorFramework curator, String path, String id) throws Exception {
      this.id = id;
      this.latch = new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, path, id);
      latch.addListener(this);
      latch.start();
    }

    @Override
    public void isLeader() {
      try {
        token = tokenOf(latch.getOurPath());
        highestToken.accumulateAndGet(token, Math::max);
        section = checker.enter(id, token);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public void notLeader() {
      MutualExclusionChecker.Section s = section;
      if (s != null) {
        s.lost();
        s.exit();
      }
    }

    /** Curator deletes first and tells after: end the section before closing. */
    void close() throws Exception {
      notLeader();
      latch.close();
    }
  }

  private LeaderLatch batonLatch(String path, String id, LeadershipRecorder recorder) {
    LeaderLatch latch = closing(baton().leaderLatch(path, id));
    latch.addListener(recorder, Runnable::run);
    latch.start();
    return latch;
  }

  @Test
  void curatorLeads_batonSeesItsId_thenTakesOver_andCuratorSeesBatons() throws Exception {
    String path = "/interop-leader/curator-first";
    CuratorParticipant curatorLeader = new CuratorParticipant(curator(), path, "curator-a");
    assertThat(curatorLeader.latch.await(10, TimeUnit.SECONDS)).isTrue();
    LeadershipRecorder recorder = new LeadershipRecorder("baton-b", checker, highestToken, regainErrors);
    LeaderLatch baton = batonLatch(path, "baton-b", recorder);
    awaitChildren(path, 2);

    assertThat(raw.children(path)).allMatch(n -> n.matches(LATCH_NODE));
    assertThat(baton.leaderId()).contains("curator-a");
    assertThat(baton.participants()).containsExactly("curator-a", "baton-b");
    assertThat(ids(curatorLeader.latch.getParticipants())).containsExactly("curator-a", "baton-b");
    assertThat(baton.await(Duration.ofMillis(100))).isFalse();

    curatorLeader.close();
    assertThat(baton.await(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> recorder.gains() == 1);
    assertThat(recorder.tokens.get(0)).isGreaterThan(curatorLeader.token);

    CuratorParticipant curatorFollower = new CuratorParticipant(curator(), path, "curator-c");
    awaitChildren(path, 2);
    assertThat(curatorFollower.latch.getLeader().getId()).isEqualTo("baton-b");
    assertThat(curatorFollower.latch.getLeader().isLeader()).isTrue();
    assertThat(ids(curatorFollower.latch.getParticipants())).containsExactly("baton-b", "curator-c");
    assertThat(curatorFollower.latch.hasLeadership()).isFalse();

    baton.close();
    assertThat(curatorFollower.latch.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(curatorFollower.token).isGreaterThan(recorder.tokens.get(0));
    curatorFollower.close();
    awaitChildren(path, 0);
    checker.assertNoViolations();
  }

  @Test
  void batonLeads_curatorSeesItsId_thenTakesOver() throws Exception {
    String path = "/interop-leader/baton-first";
    LeadershipRecorder recorder = new LeadershipRecorder("baton-a", checker, highestToken, regainErrors);
    LeaderLatch baton = batonLatch(path, "baton-a", recorder);
    assertThat(baton.await(WAIT)).isTrue();
    CuratorParticipant curatorFollower = new CuratorParticipant(curator(), path, "curator-b");
    awaitChildren(path, 2);

    String batonNode = raw.children(path).stream()
        .filter(n -> !(path + "/" + n).equals(curatorFollower.latch.getOurPath())).findFirst().orElseThrow();
    assertThat(new String(raw.data(path + "/" + batonNode), StandardCharsets.UTF_8)).isEqualTo("baton-a");
    assertThat(curatorFollower.latch.getLeader().getId()).isEqualTo("baton-a");
    assertThat(curatorFollower.latch.await(100, TimeUnit.MILLISECONDS)).isFalse();

    baton.close();
    assertThat(curatorFollower.latch.await(20, TimeUnit.SECONDS)).isTrue();
    await().atMost(WAIT).until(() -> recorder.lostOnce());
    curatorFollower.close();
    awaitChildren(path, 0);
    checker.assertNoViolations();
  }

  /** Two Baton and two Curator latches hand leadership round: one leader at a time throughout. */
  @Test
  void mixedLatches_handOverInTurns_oneLeaderAtATime() throws Exception {
    String path = "/interop-leader/mixed";
    CuratorFramework curatorClient = curator();
    Baton batonClient = baton();
    int handOvers = 12;
    List<Object> participants = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      participants.add(join(i, path, curatorClient, batonClient));
      awaitChildren(path, i + 1);
    }
    for (int h = 0; h < handOvers; h++) {
      long before = checker.sectionCount();
      await().atMost(WAIT).until(() -> leaderOf(participants) >= 0);
      int leader = leaderOf(participants);
      Object leaving = participants.get(leader);
      if (leaving instanceof CuratorParticipant c) {
        c.close();
      } else {
        ((LeaderLatch) leaving).close();
      }
      participants.set(leader, join(4 + h, path, curatorClient, batonClient, leaving instanceof CuratorParticipant));
      await().atMost(WAIT).until(() -> checker.sectionCount() > before);
    }
    for (Object p : participants) {
      if (p instanceof CuratorParticipant c) {
        c.close();
      } else {
        ((LeaderLatch) p).close();
      }
    }
    awaitChildren(path, 0);
    checker.assertNoViolations();
    assertThat(regainErrors).isEmpty();
    assertThat(checker.sectionsByClient().keySet()).anyMatch(k -> k.startsWith("curator"))
        .anyMatch(k -> k.startsWith("baton"));
  }

  private Object join(int n, String path, CuratorFramework curatorClient, Baton batonClient) throws Exception {
    return join(n, path, curatorClient, batonClient, n % 2 == 0);
  }

  private Object join(int n, String path, CuratorFramework curatorClient, Baton batonClient, boolean curator)
      throws Exception {
    if (curator) {
      return new CuratorParticipant(curatorClient, path, "curator-" + n);
    }
    String id = "baton-" + n;
    LeaderLatch latch = closing(batonClient.leaderLatch(path, id));
    latch.addListener(new LeadershipRecorder(id, checker, highestToken, regainErrors), Runnable::run);
    latch.start();
    return latch;
  }

  private static int leaderOf(List<Object> participants) {
    for (int i = 0; i < participants.size(); i++) {
      Object p = participants.get(i);
      boolean leads = p instanceof CuratorParticipant c ? c.latch.hasLeadership() : ((LeaderLatch) p).hasLeadership();
      if (leads) {
        return i;
      }
    }
    return -1;
  }

  // ---- selectors ------------------------------------------------------------------------------

  /**
   * Two Baton and two Curator selectors, all re-queuing, on one path: each leads several times,
   * never two tasks at once, and while one library's task runs the other reads its id as leader.
   */
  @Test
  void mixedSelectors_takeTurns_oneTaskAtATime_andReadEachOthersIds() throws Exception {
    String path = "/interop-leader/selectors";
    Map<String, AtomicLong> turns = new ConcurrentHashMap<>();
    List<String> seenByOther = new CopyOnWriteArrayList<>();
    AtomicReference<LeaderSelector> batonObserver = new AtomicReference<>();
    AtomicReference<org.apache.curator.framework.recipes.leader.LeaderSelector> curatorObserver =
        new AtomicReference<>();
    int[] plainCounter = new int[1];
    List<org.apache.curator.framework.recipes.leader.LeaderSelector> curatorSelectors = new ArrayList<>();
    List<LeaderSelector> batonSelectors = new ArrayList<>();

    for (int i = 0; i < 2; i++) {
      String id = "curator-" + i;
      turns.put(id, new AtomicLong());
      org.apache.curator.framework.recipes.leader.LeaderSelector selector =
          new org.apache.curator.framework.recipes.leader.LeaderSelector(curator(), path,
              new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                  String ours = lowestNode(path);
                  assertThat(new String(raw.data(path + "/" + ours), StandardCharsets.UTF_8)).isEqualTo(id);
                  try (MutualExclusionChecker.Section s = checker.enter(id, tokenOf(path + "/" + ours))) {
                    LeaderSelector other = batonObserver.get();
                    if (other != null) {
                      seenByOther.add(id + " seen by baton as " + other.leaderId().orElse("?"));
                    }
                    work(plainCounter);
                  }
                  turns.get(id).incrementAndGet();
                }
              });
      selector.setId(id);
      selector.autoRequeue();
      curatorSelectors.add(selector);
      closing(() -> {
        try {
          selector.close();
        } catch (IllegalStateException alreadyClosed) {
          // Curator refuses a second close; the test closed it already
        }
      });
    }
    for (int i = 0; i < 2; i++) {
      String id = "baton-" + i;
      turns.put(id, new AtomicLong());
      LeaderSelector selector = closing(baton().leaderSelector(path, id, lease -> {
        try (MutualExclusionChecker.Section s = checker.enter(id, lease.fencingToken())) {
          var other = curatorObserver.get();
          if (other != null) {
            seenByOther.add(id + " seen by curator as " + other.getLeader().getId());
          }
          work(plainCounter);
        }
        turns.get(id).incrementAndGet();
      })).autoRequeue();
      batonSelectors.add(selector);
    }
    batonObserver.set(batonSelectors.get(0));
    curatorObserver.set(curatorSelectors.get(0));
    for (int i = 0; i < 2; i++) {
      curatorSelectors.get(i).start();
      batonSelectors.get(i).start();
    }

    await().atMost(Duration.ofSeconds(60))
        .until(() -> turns.values().stream().allMatch(t -> t.get() >= 3));
    assertThat(raw.children(path)).allMatch(n -> n.matches(LOCK_NODE));
    curatorSelectors.forEach(org.apache.curator.framework.recipes.leader.LeaderSelector::close);
    batonSelectors.forEach(LeaderSelector::close);
    awaitChildren(path, 0);

    checker.assertNoViolations();
    long total = turns.values().stream().mapToLong(AtomicLong::get).sum();
    assertThat(plainCounter[0]).isEqualTo((int) total);
    assertThat(seenByOther).isNotEmpty().allSatisfy(line -> {
      String[] parts = line.split(" seen by \\w+ as ");
      assertThat(parts[1]).as(line).isEqualTo(parts[0]);
    });
    assertThat(seenByOther).anyMatch(l -> l.startsWith("curator")).anyMatch(l -> l.startsWith("baton"));
  }

  private static void work(int[] plainCounter) {
    int seen = plainCounter[0];
    Thread.yield();
    plainCounter[0] = seen + 1;
  }

  /** The leading node: the lowest sequence among the lock nodes. */
  private static String lowestNode(String path) throws Exception {
    return raw.children(path).stream()
        .filter(n -> n.contains("-lock-"))
        .min(Comparator.comparing(n -> n.substring(n.lastIndexOf("-lock-") + 6)))
        .orElseThrow();
  }
}
