package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.leader.LeaderSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 5, master election: several processes (a client each) run the same code; one at a time
 * leads and runs its task, then passes leadership on and queues again (requeue). The log reads
 * {@code chooser1 becomes leader ... chooser1 leaves ... chooser4 becomes leader}, never two at once.
 *
 * <p>Run: {@code java dev.baton.examples.MasterElection [host:port]}.
 */
public final class MasterElection {
  /** The log, and the most leaders there ever were at once. */
  public record Result(List<String> log, int mostLeadersAtOnce) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> run(zk, 5, 10).log().forEach(System.out::println));
  }

  public static Result run(String connectString, int participants, int terms) {
    List<String> log = new CopyOnWriteArrayList<>();
    AtomicInteger leading = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch allTerms = new CountDownLatch(terms);
    List<Baton> clients = new ArrayList<>();
    List<LeaderSelector> selectors = new ArrayList<>();
    try {
      for (int i = 1; i <= participants; i++) {
        String name = "chooser" + i;
        Baton client = Baton.connect(connectString);
        clients.add(client);
        LeaderSelector selector = client.leaderSelector("/election/master", name, leadership -> {
          most.accumulateAndGet(leading.incrementAndGet(), Math::max);
          log.add(name + " becomes leader (token " + leadership.fencingToken() + ")");
          leading.decrementAndGet(); // the term's work is done: step down before saying so
          log.add(name + " leaves");
          allTerms.countDown();
        }).autoRequeue();
        selectors.add(selector);
        selector.start();
      }
      if (!allTerms.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("only " + (terms - allTerms.getCount()) + " of " + terms + " terms ran");
      }
      return new Result(List.copyOf(log), most.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      selectors.forEach(LeaderSelector::close);
      clients.forEach(Baton::close);
    }
  }

  private MasterElection() {}
}
