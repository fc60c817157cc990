package dev.baton.chaos;

import dev.baton.Baton;
import dev.baton.testkit.ChaosLog;
import dev.baton.testkit.FaultProxyGroup;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client of a chaos run: a {@link Baton} (one session), talking to the ensemble directly or
 * through a {@link FaultProxyGroup} of its own so its link can be broken alone, and the worker
 * threads that use it. Its connection changes go to the run's {@link ChaosLog}.
 */
final class ChaosClient {
  final String name;
  final Baton baton;
  private final FaultProxyGroup proxies; // null: talks to the ensemble directly
  private final List<ChaosWorker> workers = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean killed;
  private volatile boolean stalling;
  /** How many times the client reported SUSPENDED or LOST. */
  private final AtomicInteger doubts;
  /** The sessions this client lost, for the histories that depend on them. */
  final SessionTrail sessions;

  private ChaosClient(String name, Baton baton, FaultProxyGroup proxies, AtomicInteger doubts,
      SessionTrail sessions) {
    this.name = name;
    this.baton = baton;
    this.proxies = proxies;
    this.doubts = doubts;
    this.sessions = sessions;
  }

  static ChaosClient connect(String name, TestCluster cluster, boolean proxied, Duration sessionTimeout,
      ChaosLog log) {
    FaultProxyGroup proxies = proxied ? FaultProxyGroup.forCluster(cluster) : null;
    try {
      AtomicInteger doubts = new AtomicInteger();
      SessionTrail sessions = new SessionTrail(sessionTimeout);
      Baton baton = Baton.builder()
          .connectString(proxied ? proxies.connectString() : cluster.connectString())
          .sessionTimeout(sessionTimeout)
          .connectionTimeout(Duration.ofSeconds(30))
          .build();
      baton.addConnectionStateListener(state -> {
        if (!state.isConnected()) {
          doubts.incrementAndGet();
        }
        sessions.heard(state, baton.sessionId());
        log.add(name + " " + state + " (session 0x" + Long.toHexString(baton.sessionId()) + ")");
      }, Runnable::run);
      sessions.started(baton.sessionId());
      log.add(name + " connected (session 0x" + Long.toHexString(baton.sessionId()) + ")"
          + (proxied ? " through its proxies" : ""));
      return new ChaosClient(name, baton, proxies, doubts, sessions);
    } catch (RuntimeException e) {
      if (proxies != null) {
        proxies.close();
      }
      throw e;
    }
  }

  boolean proxied() {
    return proxies != null;
  }

  /** This client's proxies, one per server; only for a proxied client. */
  FaultProxyGroup proxies() {
    if (proxies == null) {
      throw new IllegalStateException(name + " talks to the ensemble directly");
    }
    return proxies;
  }

  int doubts() {
    return doubts.get();
  }

  boolean killed() {
    return killed;
  }

  /** Whether one of the workers is in the middle of a long section, not yet told of a doubt. */
  boolean inLongSection() {
    return workers.stream().anyMatch(ChaosWorker::inLongSection);
  }

  /** Starts {@code worker} on a daemon thread of its own. */
  void run(ChaosWorker worker) {
    Thread thread = new Thread(worker, "chaos-" + worker.name);
    thread.setDaemon(true);
    worker.stallWhile(() -> stalling);
    workers.add(worker);
    threads.add(thread);
    thread.start();
  }

  /**
   * While {@code stall} is set, holders whose sections end keep holding until they are told their
   * lease is in doubt: set while the client's link is broken, so that the notice must come before
   * anyone else can hold what they hold.
   */
  void stall(boolean stall) {
    stalling = stall;
  }

  /**
   * Kills the client as a crash would: its link goes silent for good and its threads stop taking
   * anything, but nothing is released or closed. Its session expires on the ensemble.
   */
  void kill() {
    killed = true;
    stalling = true;
    proxies().blackhole();
    sessions.killed();
    workers.forEach(worker -> worker.stop(true));
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).interruptedOnCrash()) {
        threads.get(i).interrupt();
      }
    }
  }

  /** Tells the workers to finish their round and leave, closing what they opened. */
  void stopWorkers() {
    workers.forEach(worker -> worker.stop(false));
  }

  /** Waits until {@code deadlineNanos} for the worker threads to end; returns those still alive. */
  List<Thread> awaitWorkers(long deadlineNanos) throws InterruptedException {
    List<Thread> alive = new ArrayList<>();
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
      if (thread.isAlive()) {
        alive.add(thread);
      }
    }
    return alive;
  }

  /**
   * Closes the client. A killed one loses its proxies first: its session is long gone, and a
   * refused connection ends the close at once instead of after a connect timeout.
   */
  void close() {
    if (killed) {
      proxies.close();
      baton.close();
      return;
    }
    baton.close();
    if (proxies != null) {
      proxies.close();
    }
  }

  @Override
  public String toString() {
    return name + (killed ? " (killed)" : "");
  }
}
