package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.ReadWriteLock;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ReadWriteLock}: readers share, a writer excludes everyone, a waiting
 * writer keeps later readers out, and a writer can downgrade to a reader. On a backend without the
 * feature every case checks the declared refusal instead.
 */
public abstract class ReadWriteLockContract extends ContractSupport {

  @Test
  public void readersShare_acrossClients() throws Exception {
    whereSupported(Feature.READ_WRITE_LOCK, () -> {
      String name = name("readers");
      Lease first = client().readWriteLock(name).readLock().acquire(WAIT);
      Lease second = client().readWriteLock(name).readLock().acquire(WAIT);
      assertThat(first.isValid()).isTrue();
      assertThat(second.isValid()).isTrue();
      ReadWriteLock third = client().readWriteLock(name);
      await().untilAsserted(() -> assertThat(third.holders()).hasSize(2));
      assertThat(third.writeLock().tryAcquire(Duration.ZERO)).as("a writer beside readers").isEmpty();
      first.close();
      second.close();
    });
  }

  @Test
  public void writerExcludesReadersAndWriters_underContention() throws Exception {
    whereSupported(Feature.READ_WRITE_LOCK, () -> {
      String name = name("writer");
      ReadWriteLock a = client().readWriteLock(name);
      ReadWriteLock b = client().readWriteLock(name);
      try (Lease write = a.writeLock().acquire(WAIT)) {
        assertThat(b.readLock().tryAcquire(Duration.ZERO)).as("a reader beside a writer").isEmpty();
        assertThat(b.writeLock().tryAcquire(Duration.ZERO)).as("a second writer").isEmpty();
        assertThat(write.isValid()).isTrue();
      }

      MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
      List<Future<Void>> workers = new ArrayList<>();
      for (ReadWriteLock lock : List.of(a, b, client().readWriteLock(name))) {
        for (boolean writer : new boolean[] {true, false}) {
          String who = lock + (writer ? " writer" : " reader");
          workers.add(onThread(() -> {
            for (int i = 0; i < 6; i++) {
              try (Lease lease = (writer ? lock.writeLock() : lock.readLock()).acquire(WAIT)) {
                MutualExclusionChecker.Section section = writer
                    ? checker.enter(who, lease.fencingToken()) : checker.enterShared(who, lease.fencingToken());
                lease.addListener((l, state) -> {
                  if (!state.isValid()) {
                    section.lost();
                  }
                });
                Thread.yield();
                section.exit();
              }
            }
            return null;
          }));
        }
      }
      for (Future<Void> worker : workers) {
        get(worker);
      }
      assertThat(checker.sectionCount()).isEqualTo(36);
      checker.assertNoViolations();
    });
  }

  @Test
  public void waitingWriter_keepsLaterReadersWaiting() throws Exception {
    whereSupported(Feature.READ_WRITE_LOCK, () -> {
      String name = name("writer-first");
      ReadWriteLock reader = client().readWriteLock(name);
      ReadWriteLock writer = client().readWriteLock(name);
      ReadWriteLock lateReader = client().readWriteLock(name);
      Lease read = reader.readLock().acquire(WAIT);
      CompletableFuture<Lease> write = writer.writeLock().acquireAsync();
      await().untilAsserted(() -> assertThat(reader.waiters()).hasSize(1));
      assertThat(lateReader.readLock().tryAcquire(Duration.ZERO)).as("a reader behind a waiting writer").isEmpty();
      CompletableFuture<Lease> lateRead = lateReader.readLock().acquireAsync();
      await().untilAsserted(() -> assertThat(reader.waiters()).hasSize(2));
      assertThat(write).isNotDone();
      assertThat(lateRead).isNotDone();

      read.close();
      Lease written = get(write);
      assertThat(lateRead).as("the late reader while the writer holds").isNotDone();
      written.close();
      Lease late = get(lateRead);
      assertThat(late.fencingToken()).isGreaterThan(written.fencingToken());
      late.close();
    });
  }

  @Test
  public void writer_downgradesToReader_andReadersComeIn() throws Exception {
    whereSupported(Feature.READ_WRITE_LOCK, () -> {
      String name = name("downgrade");
      ReadWriteLock lock = client().readWriteLock(name);
      ReadWriteLock other = client().readWriteLock(name);
      Lease write = lock.writeLock().acquire(WAIT);
      Optional<Lease> read = lock.readLock().tryAcquire(Duration.ZERO);
      assertThat(read).as("the writer's thread gets the read lock at once").isPresent();
      assertThat(read.get().fencingToken()).as("a downgraded read lease carries the write lease's token")
          .isEqualTo(write.fencingToken());
      write.close();
      assertThat(read.get().state()).isEqualTo(LeaseState.HELD);

      ReadWriteLock writer = client().readWriteLock(name);
      try (Lease otherRead = other.readLock().acquire(WAIT)) {
        assertThat(otherRead.isValid()).isTrue();
        assertThat(writer.writeLock().tryAcquire(Duration.ZERO)).as("a writer beside the downgraded reader").isEmpty();
      }
      read.get().close();
      try (Lease otherWrite = other.writeLock().acquire(WAIT)) {
        assertThat(otherWrite.fencingToken()).isGreaterThan(write.fencingToken());
      }
    });
  }
}
