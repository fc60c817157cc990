package dev.baton.testkit.contract;

import dev.baton.Coordinator;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;

/**
 * {@link MutexContract} on a mutex made with {@link #options()}: local hand-over, caching and the
 * like trade order across clients for throughput, never the contract.
 */
public abstract class OptionsMutexContract extends MutexContract {

  /** The options every case's mutex is made with. */
  protected abstract MutexOptions options();

  @Override
  protected Mutex mutex(Coordinator client, String name) {
    return client.mutex(name, options());
  }

  /** Under local hand-over the threads of one mutex object wait behind one entry. */
  @Override
  protected int entriesFor(int threads) {
    return options().localHandOvers() > 0 ? 1 : threads;
  }
}
