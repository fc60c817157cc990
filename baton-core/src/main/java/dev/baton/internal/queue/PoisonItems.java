package dev.baton.internal.queue;

import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Session;
import dev.baton.queue.ConsumerOptions;
import dev.baton.queue.DeadLetter;
import dev.baton.queue.DeadLetterHandler;
import dev.baton.queue.QueueItem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a consumer does with an item whose handler failed: give it back at once with its count of
 * failed deliveries grown by one ({@link Redelivery}), held back from this client for a back-off
 * ({@link ItemTakers#holdBack}) so that other clients' consumers take it first; or, once that
 * count reaches {@link ConsumerOptions#maxAttempts()}, hand it to the dead letters. The count is
 * the item's, so the failures of every consumer that tried it add up to the limit, whichever
 * client they ran on.
 */
final class PoisonItems {
  private static final Logger log = LoggerFactory.getLogger(PoisonItems.class);

  private final Session session;
  private final ConsumerOptions options;
  private final String serverDeadPath; // null when a handler takes the dead letters

  PoisonItems(Session session, String queuePath, ConsumerOptions options) {
    this.session = session;
    this.options = options;
    this.serverDeadPath = options.deadLetterHandler().isPresent() ? null
        : session.settings().onServer(options.deadLetterPath().orElse(queuePath + "/dead"));
  }

  /**
   * The handler failed on {@code item} with {@code error}. Called on the consumer's thread; may
   * block while a dead letter is moved.
   *
   * @throws RuntimeException an error retrying cannot cure (moving to a dead-letter path whose ACL
   *     refuses this identity, say): the consumer stops; the item is given back
   */
  void failed(QueueItem<?> taken, Throwable error) {
    ZkQueueItem<?> item = (ZkQueueItem<?>) taken;
    int attempt = item.attempt();
    if (attempt < options.maxAttempts()) {
      log.warn("The handler failed on {} (delivery {} of at most {}); giving it back to other clients first,"
          + " this one may take it again in {}", item.path(), attempt, options.maxAttempts(),
          options.backOffAfter(attempt), error);
      item.releaseAfterFailure(options.backOffAfter(attempt));
      return;
    }
    try {
      deadLetter(item, error);
      log.warn("The handler failed on {} {} times; it is a dead letter now{}", item.path(), attempt,
          serverDeadPath == null ? "" : ", at " + session.settings().onClient(serverDeadPath), error);
    } catch (Exception e) {
      if (Errors.isUnrecoverable(e)) {
        item.close();
        throw Errors.translate(e, item.path());
      }
      log.warn("Could not hand {} to the dead letters; giving it back, this client may take it again in {}",
          item.path(), options.maxBackOff(), e);
      item.releaseAfterFailure(options.maxBackOff());
    }
  }

  private void deadLetter(ZkQueueItem<?> item, Throwable error) throws Exception {
    if (serverDeadPath != null) {
      item.moveTo(serverDeadPath);
      return;
    }
    DeadLetterHandler handler = options.deadLetterHandler().orElseThrow();
    handler.handle(new DeadLetter(item.path(), item.data(), item.attempt(), error));
    item.ackAsDeadLetter();
  }
}
