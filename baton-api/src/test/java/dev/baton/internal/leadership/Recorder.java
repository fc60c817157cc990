package dev.baton.internal.leadership;

import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** One global sequence of what participants heard, in the order they heard it. */
final class Recorder {
  final List<String> events = new CopyOnWriteArrayList<>();

  LeadershipListener listenerFor(String id) {
    return new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) {
        events.add("gained:" + id);
      }

      @Override
      public void leadershipLost(Lease leadership) {
        events.add("lost:" + id);
      }
    };
  }

  void add(String event) {
    events.add(event);
  }

  int indexOf(String event) {
    return events.indexOf(event);
  }
}
