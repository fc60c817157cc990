package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.shedlock.BatonLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.Scheduled;

/** docs/spring.md, "ShedLock". */
abstract class ShedLockJobs {
  abstract void report();

  // [shedlock]
  @Bean LockProvider lockProvider(Baton baton) { return BatonLockProvider.zookeeper(baton, "/shedlock"); }
  // or on Redis: new BatonLockProvider(redisBaton::mutex, "shedlock:")

  @Scheduled(cron = "0 0 2 * * *")
  @SchedulerLock(name = "nightly-report", lockAtMostFor = "PT30M", lockAtLeastFor = "PT1M")
  void nightlyReport() { report(); }
  // [/shedlock]
}
