package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.PinnedThreads;
import dev.baton.testkit.VirtualThreads;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis mutex with callers on virtual threads (JDK 21+), as baton-core's {@code
 * VirtualThreadContentionTest} does for ZooKeeper: ten thousand threads, exclusion, and JFR's
 * {@code jdk.VirtualThreadPinned} events counted, none with Baton's code on the stack.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class RedisVirtualThreadContentionTest extends RedisTestSupport {
  private static final Logger log = LoggerFactory.getLogger(RedisVirtualThreadContentionTest.class);
  private static final int THREADS = 10_000;
  private static final int WARM_UP_THREADS = 500;
  private static final Duration WAIT = Duration.ofMinutes(2);

  /** A frame of Baton's own code: not the JDK's, Lettuce's, this test's or the testkit's. */
  private static final Predicate<String> BATON = frame -> frame.startsWith("dev.baton.")
      && !frame.startsWith("dev.baton.testkit.") && !frame.contains("Test");

  @Test
  void tenThousandVirtualThreads_onAMutexWithLocalHandOver_keepExclusion_andPinNoCarrierInBaton()
      throws Exception {
    RedisBaton baton = client(RedisBaton.builder().uri(redis.uri()));
    Mutex mutex = baton.mutex("vthreads", RedisMutexOptions.defaults().withLocalHandOver(64));
    contend(mutex, WARM_UP_THREADS, MutualExclusionChecker.exclusive());

    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    PinnedThreads pinned = PinnedThreads.record();
    contend(mutex, THREADS, checker);
    PinnedThreads.Report report = pinned.stop();

    log.info("Pinned carriers, {} virtual threads on a Redis mutex with local hand-over: {}; per topmost Baton"
        + " frame {}", THREADS, report, report.byTopFrame(BATON));
    assertThat(checker.sectionCount()).isEqualTo(THREADS);
    assertThat(checker.violations()).isEmpty();
    assertThat(report.pinsWithFrame(BATON)).as("pinned blocks under Baton's code: %s", report.byTopFrame(BATON))
        .isEmpty();
  }

  private static void contend(Mutex mutex, int threads, MutualExclusionChecker checker) throws InterruptedException {
    List<Throwable> errors = VirtualThreads.runAll(threads, WAIT, i -> {
      try (Lease lease = mutex.acquire(WAIT);
          MutualExclusionChecker.Section section = checker.enter("vthread-" + i, lease.fencingToken())) {
        assertThat(lease.isValid()).isTrue();
      }
    });
    assertThat(errors).isEmpty();
  }
}
