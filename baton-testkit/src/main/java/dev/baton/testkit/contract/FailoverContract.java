package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.StaleTokenException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The contract across a failover of the store ({@link ContractBackend#failOver()}) right after a
 * grant that reached the server clients talk to and nothing else ({@link
 * ContractBackend#holdBackReplication()}): kept where {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}
 * is promised, else lost in the open, with the next holder's fencing token larger than the lost
 * one's. A backend runs it over a fixture that can fail over (on Redis, a primary with a replica
 * and a Sentinel; a single server that keeps its data fails over by restarting).
 */
public abstract class FailoverContract extends ContractSupport {

  /** {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}. */
  @Test
  public void aGrantLostInAnAsynchronousFailover_isKeptWherePromised_elseLostAndFencedOff() throws Exception {
    String name = name("failover");
    Coordinator patient = patientClient();
    Mutex firstMutex = patient.mutex(name);
    // An earlier holder: its grant, and the lock's fencing counter with it, reach every replica.
    firstMutex.acquire(WAIT).close();
    backend().holdBackReplication();

    Lease lease = firstMutex.acquire(WAIT);
    long lostToken = lease.fencingToken();
    List<LeaseState> heard = new CopyOnWriteArrayList<>();
    lease.addListener((l, state) -> heard.add(state));
    FencedResource<List<Long>> resource = new FencedResource<>(name, new CopyOnWriteArrayList<>());
    resource.write(lostToken, writes -> writes.add(lostToken));

    backend().failOver();
    // No renewal can reach the lost grant's server after this: the lease may claim PATIENT more at most.
    Instant failedOverBy = Instant.now();
    Mutex secondMutex = client().mutex(name);

    if (promises(Promise.GRANT_KEPT_ACROSS_FAILOVER)) {
      awaitKeptAcrossOutage(patient, name, lease, heard, "the lease after the failover");
      assertThat(secondMutex.tryAcquire(Duration.ZERO)).as("another client while the grant is kept").isEmpty();
      assertThat(heard).as("what the kept lease's listeners heard").doesNotContain(LeaseState.LOST);
      resource.write(lostToken, writes -> writes.add(lostToken));
      lease.close();
      try (Lease next = secondMutex.acquire(WAIT)) {
        assertThat(next.fencingToken()).as("the next holder's token").isGreaterThan(lostToken);
        resource.write(next.fencingToken(), writes -> writes.add(next.fencingToken()));
      }
    } else {
      // The grant is gone with the server that had it: the other client gets in (its client may
      // still be finding its way to what serves now, so a failed attempt is tried again).
      AtomicReference<Lease> granted = new AtomicReference<>();
      await().alias("another client's grant after the failover").ignoreExceptions().until(() -> {
        secondMutex.tryAcquire(SHORT).ifPresent(granted::set);
        return granted.get() != null;
      });
      Lease next = granted.get();
      assertThat(next.fencingToken()).as("the new holder's token against the lost grant's (%s)", lostToken)
          .isGreaterThan(lostToken);
      await().untilAsserted(() -> assertThat(heard).as("the lost lease's listeners").contains(LeaseState.LOST));
      assertThat(heard.subList(heard.indexOf(LeaseState.LOST), heard.size())).containsOnly(LeaseState.LOST);
      assertThat(lease.state()).isEqualTo(LeaseState.LOST);
      assertThat(lease.isValid()).isFalse();
      assertThat(lease.validUntil()).as("validity of the lost lease")
          .isBeforeOrEqualTo(failedOverBy.plus(PATIENT));

      resource.write(next.fencingToken(), writes -> writes.add(next.fencingToken()));
      assertThatThrownBy(() -> resource.write(lostToken, writes -> writes.add(lostToken)))
          .as("the lost holder's late write after the new holder's").isInstanceOf(StaleTokenException.class);
      assertThat(lease.state()).as("a lost lease is never held again").isEqualTo(LeaseState.LOST);
      lease.close();
      next.close();
    }
    List<Long> accepted = resource.read(List::copyOf);
    assertThat(accepted).as("fenced writes, in order").isSorted();
  }
}
