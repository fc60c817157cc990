package dev.baton.internal.queue;

import dev.baton.BatonObserver;
import dev.baton.BatonInterruptedException;
import dev.baton.Codec;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.ZkPaths;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.queue.ConsumerOptions;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import dev.baton.queue.QueueHandler;
import dev.baton.queue.QueueItem;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * The FIFO queue: puts are sequential creates, takes are claims made by {@link ItemTakers},
 * acknowledgements are {@link ZkQueueItem}'s. See {@link DistributedQueue} for the contract.
 */
public final class ZkQueue<T> implements DistributedQueue<T> {
  private static final byte[] EMPTY = new byte[0];
  // How often a put may find its parents missing in a row (deleted as empty containers meanwhile)
  // before it gives up; each round is a create that certainly did nothing.
  private static final int MAX_STRUCTURE_ROUNDS = 10;

  private final Session session;
  private final String path;
  private final String serverPath;
  private final Codec<T> codec;
  private final ItemTakers takers;
  private final int maxPacket;
  private final Consumer<BatonObserver.QueueEvent> events;

  public ZkQueue(Session session, String path, Codec<T> codec) {
    this(session, path, codec, event -> { });
  }

  /** A queue that reports what happens to its items to {@code events} (the client's observer). */
  public ZkQueue(Session session, String path, Codec<T> codec, Consumer<BatonObserver.QueueEvent> events) {
    this.events = Objects.requireNonNull(events, "events");
    this.session = session;
    this.path = path;
    this.codec = Objects.requireNonNull(codec, "codec must not be null");
    this.serverPath = session.settings().onServer(path);
    this.takers = new ItemTakers(session, serverPath);
    this.maxPacket = NodeSizes.maxPacket(session.settings());
  }

  @Override
  public String path() {
    return path;
  }

  // ---- put ----------------------------------------------------------------------------------

  @Override
  public void put(T item) {
    Objects.requireNonNull(item, "item must not be null");
    session.checkOpen();
    byte[] value = codec.encode(item);
    if (value == null) {
      throw new IllegalArgumentException("The codec " + codec + " encoded a " + item.getClass().getName()
          + " as null; a codec must return bytes. Nothing was written to " + path);
    }
    String prefix = serverPath + "/" + ItemNodes.ITEM_PREFIX;
    List<ACL> acl = session.settings().aclFor(prefix);
    List<ACL> pathAcl = session.settings().aclFor(serverPath);
    int maxNodeData = ItemNodes.maxNodeData(serverPath, pathAcl, prefix, acl, maxPacket);
    if ((long) value.length + ItemNodes.FORMAT_OVERHEAD > maxNodeData) {
      throw new IllegalArgumentException("The item for the queue " + ZkPaths.describe(path) + " is " + value.length
          + " bytes once encoded (" + (value.length + ItemNodes.FORMAT_OVERHEAD) + " in its node "
          + ItemNodes.ITEM_PREFIX + "... below the queue's path), over the " + maxNodeData + " bytes a node there"
          + " can hold (ZooKeeper's jute.maxbuffer of " + maxPacket + " bytes, less the request's"
          + " overhead); nothing was written. Keep large payloads elsewhere and queue a reference.");
    }
    create(prefix, ItemNodes.wrap(value), acl, pathAcl);
  }

  /**
   * Creates the item: usually one create. If the path is missing, it is created in one {@code
   * multi} with the item, so that a put that fails leaves no empty container (one that never had
   * a child is never removed by the ensemble).
   */
  private void create(String prefix, byte[] data, List<ACL> acl, List<ACL> pathAcl) {
    boolean pathMissing = false;
    for (int round = 1; ; round++) {
      session.checkOpen();
      awaitConnection(session, () -> "The item was not put on " + path);
      ZooKeeper zk = session.handle().zk();
      try {
        if (pathMissing) {
          zk.multi(List.of(
              Op.create(serverPath, EMPTY, pathAcl, CreateMode.CONTAINER),
              Op.create(prefix, data, acl, CreateMode.PERSISTENT_SEQUENTIAL)));
        } else {
          zk.create(prefix, data, acl, CreateMode.PERSISTENT_SEQUENTIAL);
        }
        return;
      } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
        // Nothing was created: the path was missing, or (for the multi) made meanwhile.
        if (round >= MAX_STRUCTURE_ROUNDS) {
          throw Errors.translate(e, path);
        }
        if (pathMissing && e instanceof KeeperException.NoNodeException) {
          createAncestors();
        }
        pathMissing = e instanceof KeeperException.NoNodeException;
      } catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException
          | KeeperException.SessionExpiredException e) {
        throw new OutcomeUnknownException(path, "Connection to ZooKeeper lost while putting an item"
            + " on " + path + ": it may or may not be in the queue, and was not sent again (a repeat"
            + " could put it twice). Put it again if a duplicate is better than a loss.", e);
      } catch (KeeperException e) {
        throw Errors.translate(e, path);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while putting an item on " + path
            + "; it may or may not be in the queue", e);
      }
    }
  }

  private void createAncestors() {
    try {
      Nodes.createParents(session, serverPath).get();
    } catch (ExecutionException e) {
      throw Errors.translate(e, path);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while putting an item on " + path
          + "; it was not put", e);
    }
  }

  /**
   * Waits, as the retry policy allows, until the client is connected: a request sent while the
   * connection is down fails without saying whether it left, and "maybe applied" should be kept
   * for replies really lost in flight.
   */
  static void awaitConnection(Session session, java.util.function.Supplier<String> notSent) {
    RetryPolicy policy = session.settings().retryPolicy();
    for (int attempt = 1; !session.state().isConnected(); attempt++) {
      session.checkOpen();
      if (attempt > policy.maxRetries()) {
        throw new ConnectionException("Not connected to ZooKeeper at " + session.settings().connectString()
            + "; the retry policy gave up waiting. " + notSent.get());
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(policy.delayBefore(attempt).toNanos(), TimeUnit.MILLISECONDS.toNanos(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while waiting for the connection. " + notSent.get(), e);
      }
    }
  }

  // ---- take ---------------------------------------------------------------------------------

  @Override
  public QueueItem<T> take() {
    return take(-1).orElseThrow();
  }

  @Override
  public Optional<QueueItem<T>> take(Duration timeout) {
    return take(Durations.timeoutNanos(Durations.checkedTimeout(timeout)));
  }

  private Optional<QueueItem<T>> take(long timeoutNanos) {
    session.checkOpen();
    ItemTakers.Taker taker = takers.enqueue(timeoutNanos);
    try {
      return Optional.of(item(taker.result().get()));
    } catch (InterruptedException e) {
      if (!takers.withdraw(taker) && !taker.result().isCompletedExceptionally()) {
        takers.release(taker.result().join());
      }
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for an item of " + path
          + "; nothing stays claimed", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TimeoutException) {
        return Optional.empty();
      }
      throw Errors.translate(e.getCause(), path);
    }
  }

  @Override
  public CompletableFuture<QueueItem<T>> takeAsync() {
    session.checkOpen();
    ItemTakers.Taker taker = takers.enqueue(-1);
    CompletableFuture<QueueItem<T>> taken = new CompletableFuture<>();
    taker.result().whenComplete((claimed, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
      if (error != null) {
        taken.completeExceptionally(Errors.translate(error, path));
        return;
      }
      QueueItem<T> item = item(claimed);
      if (!taken.complete(item)) {
        item.close(); // withdrawn by the caller while the item was on its way
      }
    }));
    taken.whenComplete((item, error) -> {
      if (error != null) {
        takers.withdraw(taker);
      }
    });
    return taken;
  }

  private QueueItem<T> item(ItemTakers.Claimed claimed) {
    events.accept(BatonObserver.QueueEvent.TAKEN);
    return new ZkQueueItem<>(session, takers, claimed, path, serverPath, codec, events);
  }

  // ---- reads --------------------------------------------------------------------------------

  @Override
  public Optional<T> peek() {
    session.checkOpen();
    String serverClaims = serverPath + "/" + ItemNodes.CLAIMS;
    Optional<PeekedItem> peeked = Retrying.call(session, path, zk -> {
      List<String> children;
      try {
        children = zk.getChildren(serverPath, false);
      } catch (KeeperException.NoNodeException e) {
        return Optional.empty();
      }
      List<String> claims;
      try {
        claims = zk.getChildren(serverClaims, false);
      } catch (KeeperException.NoNodeException e) {
        claims = List.of();
      }
      for (String item : ItemNodes.unclaimed(children, claims, Set.of())) {
        try {
          return Optional.of(new PeekedItem(item, zk.getData(serverPath + "/" + item, false, null)));
        } catch (KeeperException.NoNodeException e) {
          // acknowledged since the listing: look at the next one
        }
      }
      return Optional.empty();
    });
    return peeked.map(p -> ZkQueueItem.decode(path + "/" + p.name(), ItemNodes.unwrap(p.data()), codec));
  }

  private record PeekedItem(String name, byte[] data) {}

  @Override
  public int size() {
    session.checkOpen();
    return Retrying.call(session, path, zk -> {
      try {
        return ItemNodes.countItems(zk.getChildren(serverPath, false));
      } catch (KeeperException.NoNodeException e) {
        return 0;
      }
    });
  }

  // ---- consume ------------------------------------------------------------------------------

  @Override
  public QueueConsumer consume(QueueHandler<? super T> handler) {
    return consume(handler, ConsumerOptions.defaults());
  }

  @Override
  public QueueConsumer consume(QueueHandler<? super T> handler, Executor executor) {
    Objects.requireNonNull(executor, "executor must not be null");
    return consume(handler, ConsumerOptions.defaults().withExecutor(executor));
  }

  @Override
  public QueueConsumer consume(QueueHandler<? super T> handler, ConsumerOptions options) {
    Objects.requireNonNull(handler, "handler must not be null");
    Objects.requireNonNull(options, "options must not be null");
    session.checkOpen();
    PoisonItems poison = new PoisonItems(session, path, options);
    return ConsumerLoop.start(this, handler, options.executor().orElse(null), session.eventExecutor(), poison);
  }

  @Override
  public String toString() {
    return "DistributedQueue[" + path + "]";
  }
}
