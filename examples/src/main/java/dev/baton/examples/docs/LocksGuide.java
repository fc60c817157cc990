package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.examples.docs.Placeholders.Stock;
import dev.baton.examples.docs.Placeholders.Worker;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexLock;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.Op;

/** docs/locks.md. */
abstract class LocksGuide {
  Stock stock;
  Worker worker;
  Object accountA;
  Object accountB;
  Runnable report;
  byte[] data;

  abstract void transfer(Object from, long fromToken, Object to, long toToken);

  abstract void finishQuickly();

  abstract void show(Object catalog);

  abstract void exportWith(Lease permits);

  void mutex() {
    // [mutex]
    try (Baton baton = Baton.connect("127.0.0.1:2181")) {
      Mutex mutex = baton.mutex("/locks/sku-42");            // cheap; share it between threads
      try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {   // AcquireTimeoutException after 5 s
        stock.decrement(lease.fencingToken());               // the resource rejects older tokens
      }                                                      // close() releases, from any thread
    }
    // [/mutex]
  }

  void listener(Lease lease) {
    // [listener]
    lease.addListener((l, state) -> { if (state != LeaseState.HELD) worker.stop(); });
    // [/listener]
  }

  void multiLock(Baton baton) {
    // [multilock]
    Mutex a = baton.mutex("/accounts/a"), b = baton.mutex("/accounts/b");
    try (MultiLock.MultiLease lease = baton.multiLock(a, b).acquire(Duration.ofSeconds(5))) {  // all or nothing
      transfer(accountA, lease.fencingToken(a), accountB, lease.fencingToken(b));  // each resource checks its own lock's token
    }
    // [/multilock]
  }

  void revocation(Baton baton, Lease lease) {
    // [revocation]
    lease.makeRevocable(l -> { finishQuickly(); l.close(); });   // the holder
    baton.requestRevocation(baton.mutex("/locks/report"));       // someone else
    // [/revocation]
  }

  void family(Baton baton, Object catalog) {
    // [family]
    ReadWriteLock rw = baton.readWriteLock("/catalog");          // Curator's __READ__/__WRIT__ layout
    try (Lease read = rw.readLock().acquire(Duration.ofSeconds(5))) { show(catalog); }   // readers share
    Semaphore pool = baton.semaphore("/pools/db", 3);            // Curator's InterProcessSemaphoreV2 layout
    try (Lease permits = pool.acquire(2, Duration.ofSeconds(5))) { exportWith(permits); } // all or nothing
    Mutex job = baton.semaphoreMutex("/jobs/nightly");           // not reentrant, releasable from any thread
    // [/family]
  }

  void modes(Baton baton) {
    // [modes]
    // Threads of this client queue behind one node and pass the lock between them without a request,
    // at most 8 times in a row, so a waiter of another client waits behind at most 8 local holders.
    Mutex busy = baton.mutex("/locks/orders", MutexOptions.defaults().withLocalHandOver(8));

    // Keep the node after a release while no other client queues (a children watch tells), for up to
    // 10 s idle: acquiring again sends nothing. Another client's waiter gets it after one notification
    // and one delete; holder() shows the lock as cached.
    Mutex mostlyMine = baton.mutex("/locks/report", MutexOptions.defaults().withCaching(Duration.ofSeconds(10)));

    // Lock-delay, as in Chubby: if the holder before us lost its lease without releasing (its session
    // expired while it stalled), we are granted the lock only 5 s later, so its in-flight writes land
    // or fail first. One more round trip per acquisition; give every client of the path the same option.
    Mutex careful = baton.mutex("/locks/ledger", MutexOptions.defaults().withLockDelay(Duration.ofSeconds(5)));
    // [/modes]
  }

  void guards(Baton baton) {
    // [guards]
    try (Lease lease = baton.semaphore("/quotas/export", 5).acquire(3, Duration.ofSeconds(5))) {
      List<Op> ops = new ArrayList<>(Baton.guards(lease));
      ops.add(Op.setData("/exports/today", data, -1));
      baton.transaction(ops.toArray(Op[]::new));   // LeaseLostException if any node is gone
    }
    // [/guards]
  }

  void lock(Baton baton) throws InterruptedException {
    // [lock]
    Lock lock = MutexLock.of(baton.mutex("/locks/report"));   // any backend's Mutex, RedisBaton's too
    if (lock.tryLock(5, TimeUnit.SECONDS)) {
      try { report.run(); } finally { lock.unlock(); }        // LockLostException if the lease was lost
    }
    // [/lock]
  }
}
