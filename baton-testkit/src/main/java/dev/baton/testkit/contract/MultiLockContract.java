package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link MultiLock}: one global order whatever order the caller lists the locks
 * in, every part released, no deadlock between callers that list them in opposite orders, and
 * nothing kept when not every part could be had. On a backend without the feature every case
 * checks the declared refusal instead.
 */
public abstract class MultiLockContract extends ContractSupport {

  @Test
  public void locks_areTakenInOneGlobalOrder() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      Coordinator client = client();
      String base = name("order");
      Mutex a = client.mutex(base + "/a");
      Mutex b = client.mutex(base + "/b");
      Mutex c = client.mutex(base + "/c");
      MultiLock multi = client.multiLock(c, a, b);
      assertThat(multi.locks()).extracting(Mutex::path).containsExactly(a.path(), b.path(), c.path());
      try (MultiLock.MultiLease lease = multi.acquire(WAIT)) {
        assertThat(lease.parts()).extracting(Lease::path).containsExactly(a.path(), b.path(), c.path());
        assertThat(lease.fencingToken()).isEqualTo(lease.parts().stream().mapToLong(Lease::fencingToken).max().orElseThrow());
      }
    });
  }

  @Test
  public void close_releasesEveryPart() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      Coordinator client = client();
      String base = name("release");
      Mutex a = client.mutex(base + "/a");
      Mutex b = client.mutex(base + "/b");
      MultiLock.MultiLease lease = client.multiLock(a, b).acquire(WAIT);
      Coordinator other = client();
      assertThat(other.mutex(a.path()).tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(other.mutex(b.path()).tryAcquire(Duration.ZERO)).isEmpty();
      lease.close();
      lease.close();
      assertThat(lease.parts()).extracting(Lease::state).containsOnly(LeaseState.RELEASED);
      for (Mutex part : List.of(a, b)) {
        Mutex again = other.mutex(part.path());
        Lease free = eventually(part.path() + " after the multi-lease was closed", () -> again.tryAcquire(Duration.ZERO));
        assertThat(free.fencingToken()).isGreaterThan(lease.fencingToken(part));
        free.close();
      }
    });
  }

  @Test
  public void oppositeOrders_acrossClients_neverDeadlock_andEachLockExcludes() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      String base = name("opposite");
      String x = base + "/x";
      String y = base + "/y";
      MutualExclusionChecker onX = MutualExclusionChecker.exclusive();
      MutualExclusionChecker onY = MutualExclusionChecker.exclusive();
      List<Future<Void>> workers = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        Coordinator client = client();
        Mutex mx = client.mutex(x);
        Mutex my = client.mutex(y);
        MultiLock multi = c == 0 ? client.multiLock(mx, my) : client.multiLock(my, mx);
        for (int t = 0; t < 2; t++) {
          String who = "client" + c + "-thread" + t;
          workers.add(onThread(() -> {
            for (int i = 0; i < 5; i++) {
              try (MultiLock.MultiLease lease = multi.acquire(WAIT)) {
                MutualExclusionChecker.Section sx = onX.enter(who, lease.fencingToken(mx));
                MutualExclusionChecker.Section sy = onY.enter(who, lease.fencingToken(my));
                Thread.yield();
                sy.exit();
                sx.exit();
              }
            }
            return null;
          }));
        }
      }
      for (Future<Void> worker : workers) {
        get(worker);
      }
      assertThat(onX.sectionCount()).isEqualTo(20);
      onX.assertNoViolations();
      onY.assertNoViolations();
    });
  }

  @Test
  public void aPartHeldElsewhere_timesOut_andKeepsNothing() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      String base = name("partial");
      Coordinator holder = client();
      Lease y = holder.mutex(base + "/y").acquire(WAIT);
      Coordinator client = client();
      Mutex mx = client.mutex(base + "/x");
      MultiLock multi = client.multiLock(mx, client.mutex(base + "/y"));
      assertThat(multi.tryAcquire(SHORT)).isEmpty();
      Mutex hx = holder.mutex(base + "/x");
      eventually("the part the multi-lock took before timing out, given back", () -> hx.tryAcquire(Duration.ZERO)).close();
      y.close();
      try (MultiLock.MultiLease lease = multi.acquire(WAIT)) {
        assertThat(lease.isValid()).isTrue();
      }
    });
  }

  @Test
  public void aPartWhoseReleaseThrows_theOtherPartsAreStillReleased() throws Exception {
    whereSupported(Feature.MULTI_LOCK, () -> {
      Coordinator client = client();
      String base = name("throwing");
      Mutex a = client.mutex(base + "/a");
      Mutex b = new ReleaseThrows(client.mutex(base + "/b"));
      Mutex c = client.mutex(base + "/c");
      MultiLock.MultiLease lease = client.multiLock(a, b, c).acquire(WAIT);
      assertThatThrownBy(lease::close).as("the part's failure, thrown once every part was tried")
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("release refused");
      org.assertj.core.api.Assertions.assertThatCode(lease::close).as("a second close").doesNotThrowAnyException();
      assertThat(lease.isValid()).isFalse();
      Coordinator other = client();
      for (String path : List.of(a.path(), b.path(), c.path())) {
        Mutex again = other.mutex(path);
        eventually(path + " after the multi-lease was closed", () -> again.tryAcquire(Duration.ZERO)).close();
      }
    });
  }

  /** A mutex implemented outside the backend whose leases release, then throw (as user code may). */
  private static final class ReleaseThrows implements Mutex {
    private final Mutex mutex;

    ReleaseThrows(Mutex mutex) {
      this.mutex = mutex;
    }

    private static Lease throwing(Lease lease) {
      return new Lease() {
        @Override public String path() { return lease.path(); }
        @Override public long fencingToken() { return lease.fencingToken(); }
        @Override public LeaseState state() { return lease.state(); }
        @Override public boolean isValid() { return lease.isValid(); }
        @Override public java.time.Instant validUntil() { return lease.validUntil(); }
        @Override public void addListener(dev.baton.lock.LeaseListener listener) { lease.addListener(listener); }
        @Override public void addListener(dev.baton.lock.LeaseListener listener, java.util.concurrent.Executor executor) {
          lease.addListener(listener, executor);
        }
        @Override public void close() {
          lease.close();
          throw new IllegalStateException("release refused by a user's mutex on " + lease.path());
        }
      };
    }

    @Override public String path() { return mutex.path(); }
    @Override public Lease acquire() { return throwing(mutex.acquire()); }
    @Override public Lease acquire(Duration timeout) { return throwing(mutex.acquire(timeout)); }
    @Override public java.util.Optional<Lease> tryAcquire(Duration timeout) {
      return mutex.tryAcquire(timeout).map(ReleaseThrows::throwing);
    }
    @Override public java.util.concurrent.CompletableFuture<Lease> acquireAsync() {
      return mutex.acquireAsync().thenApply(ReleaseThrows::throwing);
    }
    @Override public java.util.concurrent.CompletableFuture<Lease> acquireAsync(Duration timeout) {
      return mutex.acquireAsync(timeout).thenApply(ReleaseThrows::throwing);
    }
    @Override public boolean isHeldByCurrentThread() { return mutex.isHeldByCurrentThread(); }
    @Override public java.util.Optional<dev.baton.lock.LockOwner> holder() { return mutex.holder(); }
    @Override public List<dev.baton.lock.LockOwner> waiters() { return mutex.waiters(); }
  }
}
