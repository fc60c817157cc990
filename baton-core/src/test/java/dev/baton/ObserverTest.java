package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client with an observer wraps its mutexes: what the observer hears, and that the wrapped
 * mutexes still work where the client needs the recipe's own object (revocation, multi-lock).
 */
class ObserverTest extends ClusterTestSupport {
  private final List<String> heard = new CopyOnWriteArrayList<>();

  private Baton observedClient(BatonObserver observer) {
    return closing(Baton.builder().connectString(cluster.connectString()).observer(observer).build());
  }

  private BatonObserver recording() {
    return new BatonObserver() {
      @Override
      public void acquired(String recipe, String path, Duration waited, Grant grant) {
        heard.add("acquired " + recipe + " " + path + " " + grant);
      }

      @Override
      public void released(String recipe, String path, Duration held) {
        heard.add("released " + recipe + " " + path);
      }
    };
  }

  @Test
  void observedMutex_revocationRequested_holderIsAsked() throws Exception {
    Baton baton = observedClient(recording());
    Mutex mutex = baton.mutex("/observed/revocable");
    Lease lease = mutex.acquire(Duration.ofSeconds(10));
    CountDownLatch asked = new CountDownLatch(1);
    lease.makeRevocable(l -> asked.countDown());

    assertThat(baton().requestRevocation(mutex)).isTrue();

    assertThat(asked.await(20, TimeUnit.SECONDS)).isTrue();
    lease.close();
  }

  @Test
  void observedMutexes_inAMultiLock_takenAndReleasedTogether() {
    Baton baton = observedClient(recording());
    MultiLock both = baton.multiLock(baton.mutex("/observed/a"), baton.semaphoreMutex("/observed/b"));

    both.acquire(Duration.ofSeconds(10)).close();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(heard).contains(
        "acquired mutex /observed/a QUEUED", "acquired semaphore-mutex /observed/b QUEUED",
        "released mutex /observed/a", "released semaphore-mutex /observed/b"));
  }

  @Test
  void observerThatThrows_lockUnaffected() {
    Baton baton = observedClient(new BatonObserver() {
      @Override
      public void acquired(String recipe, String path, Duration waited, Grant grant) {
        throw new IllegalStateException("broken observer");
      }
    });

    try (Lease lease = baton.mutex("/observed/broken").acquire(Duration.ofSeconds(10))) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void acquisitionHooksThatThrow_lockGrantedAndReleased() {
    Baton baton = observedClient(new BatonObserver() {
      @Override
      public Acquisition acquisitionStarted(String backend, String recipe, String path) {
        if (path.endsWith("start")) {
          throw new IllegalStateException("broken observer");
        }
        return new Acquisition() {
          @Override
          public void granted(Grant grant, long fencingToken) {
            throw new IllegalStateException("broken acquisition");
          }

          @Override
          public void released() {
            throw new IllegalStateException("broken acquisition");
          }
        };
      }
    });

    for (String path : List.of("/observed/broken-start", "/observed/broken-acquisition")) {
      Lease lease = baton.mutex(path).acquire(Duration.ofSeconds(10));
      assertThat(lease.isValid()).isTrue();
      lease.close();
      assertThat(baton.mutex(path).tryAcquire(Duration.ofSeconds(10))).as("released: free again").hasValueSatisfying(Lease::close);
    }
  }

  @Test
  void acquireAsync_acquisitionStartsOnTheCallersThread_thenTellsGrantAndRelease() throws Exception {
    List<String> told = new CopyOnWriteArrayList<>();
    Baton baton = observedClient(new BatonObserver() {
      @Override
      public Acquisition acquisitionStarted(String backend, String recipe, String path) {
        told.add("started " + backend + " " + recipe + " " + path + " on " + Thread.currentThread().getName());
        return new Acquisition() {
          @Override
          public void granted(Grant grant, long fencingToken) {
            told.add("granted " + grant + " " + fencingToken);
          }

          @Override
          public void released() {
            told.add("released");
          }
        };
      }
    });
    Lease theirs = baton().mutex("/observed/async").acquire(Duration.ofSeconds(10));
    String started = "started zookeeper mutex /observed/async on " + Thread.currentThread().getName();

    var future = baton.mutex("/observed/async").acquireAsync();
    assertThat(told).containsExactly(started);
    theirs.close();
    Lease lease = future.get(20, TimeUnit.SECONDS);
    lease.close();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(told).containsExactly(
        started, "granted QUEUED " + lease.fencingToken(), "released"));
  }
}
