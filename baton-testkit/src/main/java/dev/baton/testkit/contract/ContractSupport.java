package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@code *Contract} shares: the backend under test, fresh names per test, waits on
 * conditions, and the check of a feature's declaration. Cases wait on conditions, never on
 * sleeps, and make no timing assertions beyond the safety ones the contract states (a lease's
 * validity never past the server's expiry).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class ContractSupport {
  /** The longest any single condition is waited for. */
  protected static final Duration WAIT = Duration.ofSeconds(30);
  /** A short timeout for acquisitions expected to time out. */
  protected static final Duration SHORT = Duration.ofMillis(300);

  /** The lease timeout of {@link #patientClient()}. */
  protected static final Duration PATIENT = Duration.ofSeconds(20);

  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final AtomicLong SEQUENCE = new AtomicLong();
  private String testName = "case";
  private ExecutorService threads;

  /** The backend under test; a concrete {@code *ContractTest} registers it as an extension. */
  protected abstract ContractBackend backend();

  @BeforeEach
  void nameTheCase(TestInfo info) {
    testName = info.getTestMethod().map(m -> m.getName()).orElse("case");
  }

  @AfterEach
  void stopThreads() {
    if (threads != null) {
      threads.shutdownNow();
      threads = null;
    }
  }

  /** A new client of the backend, closed after the test. */
  protected Coordinator client() {
    return backend().newClient();
  }

  /**
   * A new client with a long lease timeout ({@link #PATIENT}), for cases where a link or a server
   * comes back and the lease is expected to have survived it.
   */
  protected Coordinator patientClient() {
    return backend().newClient(PATIENT);
  }

  /** A name no other case uses: {@code /contract/<case>-<n>/<what>}, valid on every backend. */
  protected String name(String what) {
    return "/contract/" + testName + "-" + NAMES.incrementAndGet() + "/" + what;
  }

  /** The next number of a sequence shared by every listener of a case, to record what came first. */
  protected static long next() {
    return SEQUENCE.incrementAndGet();
  }

  protected static ConditionFactory await() {
    return Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).pollDelay(Duration.ZERO);
  }

  /** Runs {@code body} on a thread of the case's own pool (stopped after the test). */
  protected synchronized <T> Future<T> onThread(java.util.concurrent.Callable<T> body) {
    if (threads == null) {
      threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "contract-worker");
        t.setDaemon(true);
        return t;
      });
    }
    return threads.submit(body);
  }

  /** Runs {@code body} on a new thread named {@code threadName}; its result or failure in the future. */
  protected static <T> CompletableFuture<T> onNamedThread(String threadName, java.util.concurrent.Callable<T> body) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(body.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, threadName);
    thread.setDaemon(true);
    thread.start();
    return result;
  }

  protected static <T> T get(Future<T> future) throws Exception {
    return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * The lease {@code attempt} (a try-once) returns, tried again until it returns one: releases
   * and withdrawals finish in the background, so a lock is free soon after, not at once.
   */
  protected static <L extends dev.baton.lock.Lease> L eventually(String what,
      java.util.function.Supplier<java.util.Optional<L>> attempt) {
    java.util.concurrent.atomic.AtomicReference<L> got = new java.util.concurrent.atomic.AtomicReference<>();
    await().alias(what).until(() -> {
      attempt.get().ifPresent(got::set);
      return got.get() != null;
    });
    return got.get();
  }

  /**
   * Waits until {@code lease}, held by a client of {@code holder} across a restart or failover of
   * the store that kept it, is seen in the store again by its own client (the mutex {@code name}'s
   * holder shows its token) and reads {@code HELD}, its listeners never having heard {@code LOST}.
   * Whether the client noticed the outage is the backend's affair: one that keeps a connection
   * open sees it drop and turns the lease {@code SUSPECT}, then {@code HELD} again; one that opens
   * connections per statement (the SQL client on MySQL, which has no listening connection) sees
   * nothing of a restart that falls between two renewals, and the lease rightly stays {@code HELD}.
   */
  protected static void awaitKeptAcrossOutage(Coordinator holder, String name, dev.baton.lock.Lease lease,
      java.util.List<dev.baton.lock.LeaseState> heard, String what) {
    await().alias(what).ignoreExceptions().untilAsserted(() -> {
      assertThat(holder.mutex(name).holder()).as("%s: the holder its own client sees", what)
          .hasValueSatisfying(o -> assertThat(o.fencingToken()).isEqualTo(lease.fencingToken()));
      assertThat(lease.state()).as("%s: its state", what).isEqualTo(dev.baton.lock.LeaseState.HELD);
    });
    assertThat(heard).as("%s: what its listeners heard", what).doesNotContain(dev.baton.lock.LeaseState.LOST);
  }

  /** Whether the backend promises {@code promise} (else its declared outcome is expected). */
  protected boolean promises(Promise promise) {
    return !backend().notPromised().contains(promise);
  }

  /**
   * The mutex whose {@code waiters()} a case watches for waiters queued through {@code
   * waiterOwnView}: {@code holderView} (another client's) where {@link
   * Promise#WAITERS_SEEN_BY_EVERY_CLIENT} is promised, else the waiters' own client's view, the
   * only one declared to list them.
   */
  protected dev.baton.lock.Mutex waitersView(dev.baton.lock.Mutex holderView, dev.baton.lock.Mutex waiterOwnView) {
    return promises(Promise.WAITERS_SEEN_BY_EVERY_CLIENT) ? holderView : waiterOwnView;
  }

  /** A body of a case that may throw. */
  @FunctionalInterface
  protected interface Body {
    void run() throws Exception;
  }

  /**
   * Runs {@code body} if the backend offers {@code feature}; otherwise checks the declared outcome:
   * asking a new client for the recipe throws {@link UnsupportedOperationException} naming the
   * backend and the feature.
   */
  protected void whereSupported(Feature feature, Body body) throws Exception {
    if (backend().features().contains(feature)) {
      body.run();
      return;
    }
    Coordinator client = client();
    String name = name(feature.name().toLowerCase(java.util.Locale.ROOT));
    assertThatThrownBy(() -> feature.ask(client, name))
        .as("%s declares no %s, so asking for one must be refused naming both", backend().name(), feature.words())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(backend().name())
        .hasMessageContaining(feature.words());
  }
}
