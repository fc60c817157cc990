package dev.baton.testkit.contract;

import dev.baton.Coordinator;
import dev.baton.lock.MutexOptions;
import java.time.Duration;

/**
 * A recipe of {@link Coordinator}, or an option of its mutex, that a backend may or may not offer. A backend lists what it
 * offers in {@link ContractBackend#features()}; for the others the suite asks for the recipe and
 * expects the declared outcome: an {@link UnsupportedOperationException} naming the backend and
 * {@link #words()}, at once, when the recipe is asked for.
 */
public enum Feature {
  MUTEX("mutex"),
  READ_WRITE_LOCK("read-write lock"),
  SEMAPHORE("semaphore"),
  MULTI_LOCK("multi lock"),
  LEADER_LATCH("leader latch"),
  LEADER_SELECTOR("leader selector"),
  COUNTER("counter"),
  /** {@link MutexOptions#withLocalHandOver}. */
  LOCAL_HAND_OVER("local hand-over"),
  /** {@link MutexOptions#withCaching}. */
  LOCK_CACHING("lock caching"),
  /** {@link MutexOptions#withLockDelay}. */
  LOCK_DELAY("lock-delay");

  private final String words;

  Feature(String words) {
    this.words = words;
  }

  /** How {@link Coordinator}'s refusal names the feature. */
  public String words() {
    return words;
  }

  /** Asks {@code client} for this recipe on {@code name}, as a user would; sends nothing. */
  Object ask(Coordinator client, String name) {
    return switch (this) {
      case MUTEX -> client.mutex(name);
      case READ_WRITE_LOCK -> client.readWriteLock(name);
      case SEMAPHORE -> client.semaphore(name, 2);
      case MULTI_LOCK -> client.multiLock(client.mutex(name + "/a"), client.mutex(name + "/b"));
      case LEADER_LATCH -> client.leaderLatch(name, "contract");
      case LEADER_SELECTOR -> client.leaderSelector(name, "contract", leadership -> { });
      case COUNTER -> client.counter(name);
      case LOCAL_HAND_OVER -> client.mutex(name, MutexOptions.defaults().withLocalHandOver(4));
      case LOCK_CACHING -> client.mutex(name, MutexOptions.defaults().withCaching(Duration.ofMillis(100)));
      case LOCK_DELAY -> client.mutex(name, MutexOptions.defaults().withLockDelay(Duration.ofMillis(100)));
    };
  }
}
