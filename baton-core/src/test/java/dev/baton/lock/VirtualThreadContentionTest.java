package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.PinnedThreads;
import dev.baton.testkit.VirtualThreads;
import dev.baton.testkit.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Callers on virtual threads (JDK 21+): ten thousand of them contending on one mutex whose
 * waiters share a node (local hand-over), each acquiring and releasing once. Exclusion holds, and
 * no carrier is pinned with Baton's own code on the stack: a virtual thread that blocked inside a
 * Baton monitor (JDK 21-23) or a native frame under a Baton call would show up as a JFR {@code
 * jdk.VirtualThreadPinned} event with a Baton frame. The counts per top frame are logged.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadContentionTest {
  private static final Logger log = LoggerFactory.getLogger(VirtualThreadContentionTest.class);
  private static final int THREADS = 10_000;
  private static final int WARM_UP_THREADS = 500;
  private static final Duration WAIT = Duration.ofMinutes(2);

  @RegisterExtension static final ZooKeeperExtension zk = new ZooKeeperExtension();

  @Test
  void tenThousandVirtualThreads_onAMutexWithLocalHandOver_keepExclusion_andPinNoCarrierInBaton()
      throws Exception {
    Baton baton = zk.closing(Baton.connect(zk.connectString()));
    Mutex mutex = baton.mutex("/vthreads/cohort", MutexOptions.defaults().withLocalHandOver(64));
    // Warm-up: classes loaded and initialized (a class initializer pins by itself), code compiled.
    contend(mutex, WARM_UP_THREADS, MutualExclusionChecker.exclusive());

    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    PinnedThreads pinned = PinnedThreads.record();
    contend(mutex, THREADS, checker);
    PinnedThreads.Report report = pinned.stop();

    log.info("Pinned carriers, {} virtual threads on a mutex with local hand-over: {}; per topmost Baton frame {}",
        THREADS, report, report.byTopFrame(BATON));
    assertThat(checker.sectionCount()).isEqualTo(THREADS);
    assertThat(checker.violations()).isEmpty();
    assertThat(report.pinsWithFrame(BATON)).as("pinned blocks under Baton's code: %s", report.byTopFrame(BATON))
        .isEmpty();
  }

  /**
   * The recording sees pinning at all, so an empty count above means something: a virtual thread
   * that blocks inside a class initializer stays on its carrier on every JDK so far (25 included).
   */
  @Test
  void theRecording_countsAVirtualThreadBlockedInAClassInitializer() throws Exception {
    PinnedThreads pinned = PinnedThreads.record();
    Thread initializing = VirtualThreads.factory().newThread(BlocksInItsInitializer::touch);
    initializing.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> initializing.getState() == Thread.State.TIMED_WAITING);
    INITIALIZER_RELEASE.countDown();
    initializing.join();
    PinnedThreads.Report report = pinned.stop();

    assertThat(report.pinsWithFrame(frame -> frame.contains("BlocksInItsInitializer.<clinit>"))).isNotEmpty();
  }

  // Outside the class below: touching a field of it would wait for its initializer to end.
  private static final CountDownLatch INITIALIZER_RELEASE = new CountDownLatch(1);

  /** Waits in its static initializer until the test lets it go. */
  private static final class BlocksInItsInitializer {
    static {
      try {
        INITIALIZER_RELEASE.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    static void touch() {}
  }

  /** A frame of Baton's own code: not the JDK's, not this test's, not the testkit's. */
  static final Predicate<String> BATON = frame -> frame.startsWith("dev.baton.")
      && !frame.startsWith("dev.baton.testkit.") && !frame.contains("Test");

  /** {@code threads} virtual threads, each acquiring {@code mutex} once; fails on any thread's error. */
  static void contend(Mutex mutex, int threads, MutualExclusionChecker checker) throws InterruptedException {
    List<Throwable> errors = VirtualThreads.runAll(threads, WAIT, i -> {
      try (Lease lease = mutex.acquire(WAIT);
          MutualExclusionChecker.Section section = checker.enter("vthread-" + i, lease.fencingToken())) {
        assertThat(lease.isValid()).isTrue();
      }
    });
    assertThat(errors).isEmpty();
  }
}
