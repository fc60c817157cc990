package dev.baton.internal.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.fake.FakeLocks;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How a participant's id travels through the lock's owner record, and what others read back. */
class ParticipantQueueTest {

  private static LockOwner owner(String host, long pid, String thread) {
    return new LockOwner("node-1", 7, host, pid, thread, 0, Instant.EPOCH, false);
  }

  @Test
  void readsTheIdOfAParticipantAndRendersAnyOtherOwner() {
    assertThat(ParticipantQueue.idOf(owner("vm", 12, ParticipantQueue.PREFIX + "billing-3"))).isEqualTo("billing-3");
    assertThat(ParticipantQueue.idOf(owner("vm", 12, "main"))).isEqualTo("vm:12:main");
    // What a backend could read of an owner written by another library: the raw value, as host.
    assertThat(ParticipantQueue.idOf(owner("10.0.0.7", 0, ""))).isEqualTo("10.0.0.7");
    assertThat(ParticipantQueue.idOf(owner("", 0, ""))).isEqualTo("node-1");
  }

  @Test
  void aWithdrawnRequestThatIsGrantedAnywayIsReleased() {
    FakeLocks server = new FakeLocks();
    Lease held = server.mutex("/e").acquire();
    CompletableFuture<Lease> queued = ParticipantQueue.queue(server.mutex("/e"), "p1");
    org.awaitility.Awaitility.await().until(() -> server.waitersOf("/e") == 1);

    queued.cancel(false);
    held.close();

    assertThat(server.holderOf("/e")).isEmpty();
    assertThat(server.waitersOf("/e")).isZero();
  }
}
