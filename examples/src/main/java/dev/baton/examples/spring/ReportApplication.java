package dev.baton.examples.spring;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A Spring Boot application on the starter: its {@code Baton}, the {@code LockRegistry} an order
 * service locks orders with, and a {@code @Scheduled} report that ShedLock runs on one node at a
 * time. Start it twice against one ensemble and the report still runs on one node at a time.
 *
 * <p>Run: {@code java dev.baton.examples.spring.ReportApplication --baton.connect-string=host:port}
 * (the examples' test starts an embedded ZooKeeper and two of these).
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
public class ReportApplication {
  public static void main(String[] args) {
    SpringApplication.run(ReportApplication.class, args);
  }
}
