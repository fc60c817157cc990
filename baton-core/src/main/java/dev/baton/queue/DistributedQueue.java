package dev.baton.queue;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.Codec;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A first-in first-out queue across processes whose items survive the consumer that takes them:
 * a taken item is only <em>claimed</em>, and leaves the queue when its consumer {@linkplain
 * QueueItem#ack() acknowledges} it. If the consumer gives it back ({@link QueueItem#release()}),
 * or dies (its session ends) before acknowledging, the item goes to another consumer. Thread-safe,
 * and cheap to make: {@code baton.queue(path, codec)} sends nothing.
 *
 * <pre>{@code
 * DistributedQueue<Order> orders = baton.queue("/queues/orders", Codec.json(Order.class));
 * orders.put(order);                                       // any client, any thread
 *
 * try (QueueItem<Order> item = orders.take()) {            // waits for an item
 *   ship(item.value());
 *   item.ack();                                            // gone for good
 * }                                                        // not acked: given back
 *
 * QueueConsumer consumer = orders.consume(order -> ship(order)); // acks on return
 * }</pre>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Order: items are numbered by the ensemble as they are put, and every consumer claims the
 *       lowest-numbered item nobody has claimed. So one consumer takes items in the order they
 *       were put, and the items of one producer are claimed in the order it put them, whoever
 *       claims them. An item given back, or freed by a consumer's death, keeps its place: waiting
 *       consumers are woken by the claim's removal and take it first; busy ones see it when they
 *       next list the queue (the client that gave an item back takes it next itself, unless a
 *       {@linkplain #consume consumer}'s handler failed on it: then other clients' consumers get
 *       it first, see {@link ConsumerOptions}).
 *   <li>A claimed item is delivered to nobody else while the session of its claimant lives: its
 *       claim is an ephemeral node, {@code <path>/claims/queue-<n>}, made before the item is
 *       handed out. {@link QueueItem#ack()} deletes item and claim in one transaction that fails
 *       if the claim is gone, so a consumer whose session expired can never delete an item now
 *       claimed by another.
 *   <li>Delivery is exactly once while consumers acknowledge and keep their sessions; a consumer
 *       that dies (or whose session expires) after its work and before its acknowledgement makes
 *       the item go to another consumer: at-least-once. Work that must not be repeated has to be
 *       idempotent (or checked against a record of done work), as no queue can know what the
 *       work did before its consumer died.
 *   <li>Put is at most once: see {@link #put}.
 * </ul>
 *
 * <h2>Nodes, and Curator</h2>
 * Items are persistent sequential nodes {@code <path>/queue-<10-digit sequence>}, as in Curator's
 * {@code DistributedQueue}, holding the encoded value in Curator's item format (a 4-byte version,
 * the item, an end mark: ten bytes more than the encoded value). Claims are ephemeral nodes of the
 * same name under {@code <path>/claims}; the data of a claim names its claimant. A Curator queue
 * built with {@code QueueBuilder.builder(client, consumer, serializer, path).lockPath(path +
 * "/claims")} therefore shares items with Baton in both directions, each claiming before it
 * processes (Curator logs the {@code claims} child as a "foreign node" and skips it). Baton reads
 * items of one value only: one written by Curator's {@code putMulti} with several fails to decode
 * (see {@link QueueItem#value()}); items holding bytes not in Curator's format are handed to the
 * codec as they are, so hand-written producers can put raw values. The path and {@code claims}
 * are container nodes: the ensemble removes them once empty.
 *
 * <h2>Waiting, and what it costs</h2>
 * Requests to the ensemble: a put is one create; an acknowledgement one transaction; giving an
 * item back one delete. A take is a claim (a transaction) and a read of the item, sent together:
 * two requests, one round trip, when the consumer's listing of the queue is current; otherwise
 * two more, the listing of items and claims. A consumer draining a queue alone lists it once.
 *
 * <p>A waiting consumer holds no thread (except in blocking {@link #take()}) and does not poll.
 * The takers of one {@code DistributedQueue} object share one listing, kept current by two
 * children watches (on the path and on {@code claims}). When the queue is empty, a put wakes
 * each <em>client</em> waiting on it (not each waiting take) once: each lists the queue again,
 * tries to claim the new item, and lists once or twice more, as the winner's claim makes every
 * listing stale. So with {@code c} clients idle on one queue a put costs up to about {@code 8c}
 * requests (measured: 25 to 31 for 4 idle clients of 5 takers each): keep the number of idle
 * consumer clients per queue moderate, or give each group a queue of its own. The listing grows
 * with the queue: ZooKeeper refuses a reply over its packet limit, about 50 000 items.
 *
 * <h2>Connection loss, session expiry, timeouts</h2>
 * A waiting take keeps waiting across a lost connection and a session expiry (it lists the queue
 * again on the client's new session), until its timeout if it has one. A taken item whose
 * session expires is no longer claimed; {@link QueueItem#ack()} then fails with {@link
 * ClaimLostException} and deletes nothing. Reads ({@link #peek()}, {@link #size()}) are retried
 * as the client's {@link RetryPolicy} says.
 *
 * @param <T> the type of the items, as the queue's {@link Codec} turns them into bytes
 */
public interface DistributedQueue<T> {

  /** The queue's path, as given. */
  String path();

  /**
   * Adds {@code item} at the tail of the queue, creating the path (as a container) if needed.
   * Returns once the ensemble has the item.
   *
   * <p>Connection loss: while the client is not connected, it waits as the {@link RetryPolicy}
   * allows before sending (then {@link ConnectionException}: nothing was sent). Once sent it is
   * not sent again: a sequential create whose reply is lost may have made the item, and repeating
   * it could put the item twice. So a put is applied at most once, and {@link
   * OutcomeUnknownException} says the reply was lost; put the item again if a duplicate is
   * better than a loss for you (at-least-once). No timeout of its own.
   *
   * @throws IllegalArgumentException naming the path, the size and the limit if the encoded item
   *     is over ZooKeeper's size limit for a node ({@code jute.maxbuffer}, 1 MB by default, less
   *     the request's overhead); nothing is written
   * @throws NullPointerException if {@code item} is null
   * @throws OutcomeUnknownException if the connection was lost after sending
   */
  void put(T item);

  /**
   * Claims the oldest unclaimed item, waiting as long as it takes. Close the item (or {@link
   * QueueItem#ack() ack} it) when done. Across connection loss and session expiry it keeps
   * waiting (see above).
   *
   * @throws BatonInterruptedException if interrupted while waiting; nothing stays claimed
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  QueueItem<T> take();

  /**
   * As {@link #take()}, waiting at most {@code timeout}; empty when it passes (as {@code
   * BlockingQueue.poll}), with nothing left claimed and no node made. {@code Duration.ZERO}
   * looks once, without waiting for a put.
   *
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  Optional<QueueItem<T>> take(Duration timeout);

  /**
   * Waits for an item without holding a thread, across connection loss and session expiry as
   * {@link #take()}. Completes on the client's event executor; fails with {@link
   * ClientClosedException} if the client closes first.
   * Cancelling the future (or completing it in any other way, e.g. {@code orTimeout}) withdraws
   * the request; an item claimed for it meanwhile goes to another waiting taker or back to the
   * queue.
   */
  CompletableFuture<QueueItem<T>> takeAsync();

  /**
   * The oldest unclaimed item's value, without claiming it; empty if there is none. Another
   * consumer may take it at any moment. Three requests; retried on connection loss as the
   * {@link RetryPolicy} says.
   *
   * @throws BatonException naming the item if its value cannot be decoded
   */
  Optional<T> peek();

  /**
   * How many items are in the queue, claimed ones included (an item leaves when acknowledged).
   * One request; retried on connection loss as the {@link RetryPolicy} says.
   */
  int size();

  /**
   * Hands items to {@code handler} one after another, on a thread of the consumer's own, until
   * the returned consumer is closed: an item is acknowledged when the handler returns, and given
   * back at once when it throws, to other clients' consumers first: this client takes it again
   * only after a back-off that grows with each failure of the item, and only if nobody else took
   * it meanwhile. An item whose tenth delivery fails too, counted across every consumer that
   * tried it, moves to {@code <queue path>/dead} ({@link ConsumerOptions#defaults()}, where the
   * rules are). For handlers that run long: the item stays claimed as long
   * as the client's session lives. Call again for more consumers. Connection loss and session
   * expiry while waiting for an item: as {@link #take()}; while an item is handled: its
   * acknowledgement may fail ({@link QueueItem#ack()}), which is logged, and the consumer goes on.
   */
  QueueConsumer consume(QueueHandler<? super T> handler);

  /** As {@link #consume(QueueHandler)}, running the handler on {@code executor}. */
  QueueConsumer consume(QueueHandler<? super T> handler, Executor executor);

  /**
   * As {@link #consume(QueueHandler)}, with the executor, the back-off between deliveries of a
   * failing item, and where items go that fail too often, as {@code options} say. {@link
   * #consume(QueueHandler)} uses {@link ConsumerOptions#defaults()}.
   */
  QueueConsumer consume(QueueHandler<? super T> handler, ConsumerOptions options);
}
