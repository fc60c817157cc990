package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import dev.baton.cache.CacheListener;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code config-propagation-20}: how fast a config change reaches 20 caches. One writer session
 * sets a key; 20 reader sessions each keep a cache of the prefix with a listener. Each update is
 * timed from just before the write is sent to each cache's listener being told, so every update
 * gives 20 samples; the next update starts once all 20 have heard. Lower is better, so the ratio
 * is Curator / Baton; the main figure is the p50 of a round's samples, p99 beside it.
 *
 * <p>Baton: {@link ConfigCenter} for the writer ({@code set}, one {@code setData} on the version
 * its own copy holds) and for each reader, listeners on the client's event executor (its default,
 * one thread hand-off after ZooKeeper's event thread; a reference side runs them on ZooKeeper's).
 * Curator: {@code CuratorFramework.setData()} for the writer, a {@code CuratorCache} per reader,
 * listeners as it calls them by default (on ZooKeeper's event thread). Both caches rest on one
 * persistent recursive watch and read the changed node. Baton's writer keeps a copy too, but it
 * learns its own writes from their replies and reads nothing, so both sides cost the server the
 * same requests. A reference side has each reader keep Baton's public {@code TreeCache} instead
 * (the cache the config center stands on, listeners on the client's event executor). The sides
 * alternate window by window on one server, each window with fresh sessions and a fresh path.
 */
final class ConfigPropagationScenario implements Scenario {
  static final String NAME = "config-propagation-20";
  private static final int READERS = 20;
  private static final int MIN_UPDATES = 20;
  private static final int MAX_UPDATES = 5_000;
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String KEY = "feature/flag";

  /** Which writer and caches a side runs. */
  private enum Kind { BATON, BATON_DIRECT, CURATOR, RAW, BATON_TREE_CACHE }

  private record Side(String id, String label, Role role, Kind kind) {}

  /**
   * Baton's default runs each listener on the client's own event executor, one thread hand-off
   * after ZooKeeper's event thread, so that no listener can hold up lease notices and grants; the
   * reference side shows what that hand-off costs, with the listener where Curator calls its own.
   * The floor is what any watch-based cache must do: a persistent recursive watch, and a read of
   * each changed node, since a watch event carries no data.
   */
  private static final List<Side> SIDES = List.of(
      new Side("baton", "Baton ConfigCenter", Role.BATON, Kind.BATON),
      new Side("curator", "Curator CuratorCache", Role.CURATOR, Kind.CURATOR),
      new Side("baton-direct", "reference: Baton ConfigCenter, listener on ZooKeeper's event thread (Runnable::run)",
          Role.REFERENCE, Kind.BATON_DIRECT),
      new Side("raw", "(f) raw: persistent recursive watch per reader, getData on each change, setData",
          Role.FLOOR, Kind.RAW),
      new Side("baton-cache", "reference: Baton TreeCache (baton.cache) per reader, ConfigCenter writer",
          Role.REFERENCE, Kind.BATON_TREE_CACHE));

  /** One side's writer and caches: the sides differ only here. */
  private interface Caches extends AutoCloseable {
    /** Sends the write of {@code value} and waits for its reply. */
    void write(String value) throws Exception;

    @Override
    void close();
  }

  /** One update on its way: when each reader heard it. */
  private static final class Update {
    final long seq;
    final AtomicLongArray heardAt = new AtomicLongArray(READERS);
    final CountDownLatch all = new CountDownLatch(READERS);

    Update(long seq) {
      this.seq = seq;
    }

    void heard(int reader, String value) {
      long now = System.nanoTime();
      if (value != null && value.equals(Long.toString(seq)) && heardAt.compareAndSet(reader, 0, now)) {
        all.countDown();
      }
    }
  }

  /** Where the readers' listeners report; the update on its way, or null. */
  private static final class Board {
    volatile Update current;

    void heard(int reader, String value) {
      Update update = current;
      if (update != null) {
        update.heard(reader, value);
      }
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(NAME, "us", false,
        "1 writer session sets a key, " + READERS + " reader sessions each cache the prefix: write sent -> each "
            + "cache's listener told (p50 over a round's updates x " + READERS + " caches)");
    List<Series> p50 = new ArrayList<>();
    List<Series> p99 = new ArrayList<>();
    for (Side side : SIDES) {
      p50.add(result.add(new Series(side.label(), side.role(), options.rounds())));
      p99.add(new Series(side.label() + " p99", side.role(), options.rounds()));
    }
    result.compare("p99", p99.get(0), p99.get(1));
    result.compare("p99, reference (listener on ZooKeeper's event thread)", p99.get(2), p99.get(1));
    if (!options.warmup().isZero()) {
      context.progress(NAME + ": warm-up, " + BenchOptions.seconds(options.warmup()) + " each");
      for (Side side : SIDES) {
        updates(side, context, context.freshPath(NAME, side.id(), "warmup"), options.warmup());
      }
    }
    List<Double[]> lastOfAll = new ArrayList<>();
    for (int i = 0; i < SIDES.size(); i++) {
      lastOfAll.add(new Double[options.rounds()]);
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(NAME + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < SIDES.size(); k++) {
        int index = (k + round) % SIDES.size();
        Side side = SIDES.get(index);
        Run run = updates(side, context, context.freshPath(NAME, side.id(), "r" + (round + 1)), options.window());
        double median = run.percentileMicros(run.samples(), 0.50);
        double tail = run.percentileMicros(run.samples(), 0.99);
        double last = run.percentileMicros(run.lastOfAll(), 0.50);
        p50.get(index).put(round, median);
        p99.get(index).put(round, tail);
        lastOfAll.get(index)[round] = last;
        p50.get(index).putExtra("requestsPerCycle", round, run.requestsPerUpdate());
        line.append(String.format(Locale.ROOT, " %s p50 %,.0f us p99 %,.0f us, all %d caught up p50 %,.0f us"
            + " (%d updates, %.1f requests each);", side.id(), median, tail, READERS, last,
            run.lastOfAll().length, run.requestsPerUpdate()));
      }
      context.progress(line.toString());
    }
    Spread batonLast = Spread.ofOrNull(Arrays.asList(lastOfAll.get(0)));
    Spread curatorLast = Spread.ofOrNull(Arrays.asList(lastOfAll.get(1)));
    Spread directLast = Spread.ofOrNull(Arrays.asList(lastOfAll.get(2)));
    if (batonLast != null && curatorLast != null && directLast != null) {
      result.note(String.format(Locale.ROOT, "until the last of the %d caches heard an update (p50 over updates):"
          + " Baton %,.0f us, Curator %,.0f us, Baton with the listener on ZooKeeper's event thread %,.0f us",
          READERS, batonLast.median(), curatorLast.median(), directLast.median()));
    }
    result.note("requests per update (median; \"requests/cycle\" in the details): Baton " + requests(p50.get(0))
        + ", Curator " + requests(p50.get(1)) + " (the write, then one read per reader's cache; Baton's writer"
        + " keeps a copy too, which learns the write from its reply and reads nothing)");
    return result;
  }

  private static String requests(Series s) {
    Spread spread = s.extra("requestsPerCycle");
    return spread == null ? "-" : String.format(Locale.ROOT, "%.1f", spread.median());
  }

  /**
   * One window's figures, in nanoseconds: every (update, cache) sample, the time until the last
   * cache heard each update, and the requests the server counted per update.
   */
  private record Run(long[] samples, long[] lastOfAll, double requestsPerUpdate) {
    double percentileMicros(long[] sorted, double p) {
      return LongSamples.nearestRank(sorted, p) / 1e3;
    }
  }

  private static Run updates(Side side, BenchContext context, String path, Duration window) throws Exception {
    Board board = new Board();
    try (Caches caches = switch (side.kind()) {
      case BATON -> new BatonCaches(context.connectString(), path, board, false);
      case BATON_DIRECT -> new BatonCaches(context.connectString(), path, board, true);
      case CURATOR -> new CuratorCaches(context.connectString(), path, board);
      case RAW -> new RawCaches(context.connectString(), path, board);
      case BATON_TREE_CACHE -> new BatonTreeCaches(context.connectString(), path, board);
    }) {
      long seq = 0;
      update(caches, board, ++seq, side); // every cache has the key before timing starts
      long readingCost = context.counters().readingCost();
      LongSamples samples = new LongSamples();
      LongSamples lastOfAll = new LongSamples();
      List<Double> requests = new ArrayList<>();
      long end = System.nanoTime() + window.toNanos();
      while (lastOfAll.size() < MAX_UPDATES && (lastOfAll.size() < MIN_UPDATES || System.nanoTime() - end < 0)) {
        long packetsBefore = context.counters().packetsReceived();
        Update update = new Update(++seq);
        board.current = update;
        long sentAt = System.nanoTime();
        caches.write(Long.toString(update.seq));
        awaitAll(update, side);
        long last = 0;
        for (int i = 0; i < READERS; i++) {
          long latency = update.heardAt.get(i) - sentAt;
          samples.add(latency);
          last = Math.max(last, latency);
        }
        lastOfAll.add(last);
        requests.add((double) (context.counters().packetsReceived() - packetsBefore - readingCost));
      }
      board.current = null;
      return new Run(LongSamples.sortedUnion(List.of(samples)), LongSamples.sortedUnion(List.of(lastOfAll)),
          Spread.of(requests).median());
    }
  }

  /** An untimed update: written, and heard by every cache. */
  private static void update(Caches caches, Board board, long seq, Side side) throws Exception {
    Update update = new Update(seq);
    board.current = update;
    caches.write(Long.toString(seq));
    awaitAll(update, side);
  }

  private static void awaitAll(Update update, Side side) throws Exception {
    if (!update.all.await(WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new BenchFailure(side.label() + ": only " + (READERS - update.all.getCount()) + " of " + READERS
          + " caches heard update " + update.seq + " within " + WAIT.toSeconds() + " s");
    }
  }

  // ---- the two libraries, with the session settings of the other scenarios -------------------

  private static final class BatonCaches implements Caches {
    private final List<Baton> clients = new ArrayList<>();
    private final ConfigCenter writer;

    BatonCaches(String connectString, String path, Board board, boolean direct) {
      try {
        writer = ConfigCenter.open(client(connectString), path);
        for (int i = 0; i < READERS; i++) {
          int reader = i;
          ConfigCenter cache = ConfigCenter.open(client(connectString), path);
          ConfigListener listener = (key, oldValue, newValue) -> {
            if (key.equals(KEY)) {
              board.heard(reader, newValue);
            }
          };
          if (direct) {
            cache.addListener(listener, Runnable::run);
          } else {
            cache.addListener(listener);
          }
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    private Baton client(String connectString) {
      Baton client = Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
          .connectionTimeout(Duration.ofSeconds(15)).build();
      clients.add(client);
      return client;
    }

    @Override
    public void write(String value) {
      writer.set(KEY, value);
    }

    @Override
    public void close() {
      ParallelClose.closeAll(clients, Baton::close); // closes the config centers with their sessions
    }
  }

  /** Baton's public cache in each reader, as a Curator user would use it; the same writer as Baton's side. */
  private static final class BatonTreeCaches implements Caches {
    private final List<Baton> clients = new ArrayList<>();
    private final ConfigCenter writer;

    BatonTreeCaches(String connectString, String path, Board board) {
      try {
        Baton writing = Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
            .connectionTimeout(Duration.ofSeconds(15)).build();
        clients.add(writing);
        writer = ConfigCenter.open(writing, path);
        String keyPath = path + "/" + KEY;
        for (int i = 0; i < READERS; i++) {
          int reader = i;
          Baton client = Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
              .connectionTimeout(Duration.ofSeconds(15)).build();
          clients.add(client);
          TreeCache cache = client.cache(path);
          cache.addListener(new CacheListener() {
            @Override
            public void added(CachedNode node) {
              changed(null, node);
            }

            @Override
            public void changed(CachedNode before, CachedNode after) {
              if (after.path().equals(keyPath)) {
                board.heard(reader, after.dataAsString());
              }
            }
          });
          if (!cache.start().awaitInitialized(WAIT)) {
            throw new IllegalStateException("Baton's cache of " + path + " did not load within " + WAIT.toSeconds() + " s");
          }
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    @Override
    public void write(String value) {
      writer.set(KEY, value);
    }

    @Override
    public void close() {
      ParallelClose.closeAll(clients, Baton::close); // closes the caches with their sessions
    }
  }

  private static final class CuratorCaches implements Caches {
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<CuratorCache> caches = new ArrayList<>();
    private final CuratorFramework writer;
    private final String keyPath;

    CuratorCaches(String connectString, String path, Board board) throws Exception {
      keyPath = path + "/" + KEY;
      try {
        writer = client(connectString);
        writer.create().creatingParentsIfNeeded().forPath(keyPath, "0".getBytes(StandardCharsets.UTF_8));
        CountDownLatch initialized = new CountDownLatch(READERS);
        for (int i = 0; i < READERS; i++) {
          int reader = i;
          CuratorCache cache = CuratorCache.build(client(connectString), path);
          cache.listenable().addListener(CuratorCacheListener.builder()
              .forCreatesAndChanges((oldNode, node) -> {
                if (node.getPath().equals(keyPath)) {
                  board.heard(reader, new String(node.getData(), StandardCharsets.UTF_8));
                }
              })
              .forInitialized(initialized::countDown)
              .build());
          caches.add(cache);
          cache.start();
        }
        if (!initialized.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("Curator's caches of " + path + " did not load within " + WAIT.toSeconds() + " s");
        }
      } catch (Exception e) {
        close();
        throw e;
      }
    }

    private CuratorFramework client(String connectString) throws InterruptedException {
      CuratorFramework client = CuratorFrameworkFactory.newClient(
          connectString, 30_000, 15_000, new ExponentialBackoffRetry(100, 3));
      clients.add(client);
      client.start();
      if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Curator could not connect to " + connectString + " within 15 s");
      }
      return client;
    }

    @Override
    public void write(String value) throws Exception {
      writer.setData().forPath(keyPath, value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      caches.forEach(CuratorCache::close);
      ParallelClose.closeAll(clients, CuratorFramework::close);
    }
  }

  /** The floor: plain ZooKeeper clients, each reader one persistent recursive watch and a read per change. */
  private static final class RawCaches implements Caches {
    private final List<ZooKeeper> clients = new ArrayList<>();
    private final ZooKeeper writer;
    private final String keyPath;

    RawCaches(String connectString, String path, Board board) throws Exception {
      keyPath = path + "/" + KEY;
      try {
        writer = client(connectString);
        writer.create(path + "/feature", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        writer.create(keyPath, "0".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
        for (int i = 0; i < READERS; i++) {
          int reader = i;
          ZooKeeper zk = client(connectString);
          AsyncCallback.DataCallback told = (rc, nodePath, ctx, data, stat) -> {
            if (rc == KeeperException.Code.OK.intValue()) {
              board.heard(reader, new String(data, StandardCharsets.UTF_8));
            }
          };
          zk.addWatch(path, event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDataChanged && keyPath.equals(event.getPath())) {
              zk.getData(keyPath, false, told, null);
            }
          }, AddWatchMode.PERSISTENT_RECURSIVE);
        }
      } catch (Exception e) {
        close();
        throw e;
      }
    }

    private ZooKeeper client(String connectString) throws Exception {
      CountDownLatch connected = new CountDownLatch(1);
      ZooKeeper zk = new ZooKeeper(connectString, 30_000, event -> {
        if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
          connected.countDown();
        }
      });
      clients.add(zk);
      if (!connected.await(15, TimeUnit.SECONDS)) {
        throw new IllegalStateException("a raw ZooKeeper client could not connect to " + connectString + " within 15 s");
      }
      return zk;
    }

    @Override
    public void write(String value) throws Exception {
      writer.setData(keyPath, value.getBytes(StandardCharsets.UTF_8), -1);
    }

    @Override
    public void close() {
      ParallelClose.closeAll(clients, zk -> {
        try {
          zk.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
  }
}
