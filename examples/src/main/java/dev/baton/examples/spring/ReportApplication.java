package dev.baton.examples.spring;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A Spring Boot 4 application on {@code baton-spring-boot4-starter}, set up by its {@code
 * application.yml} alone: the config center's keys as properties ({@code
 * spring.config.import=baton:/config/report}), its {@code Baton}, the {@code LockRegistry} an order
 * service locks orders with, and a {@code @Scheduled} report that ShedLock runs on one node at a
 * time. Start it twice against one ensemble and the report still runs on one node at a time.
 *
 * <p>Run: {@code java dev.baton.examples.spring.ReportApplication --baton.connect-string=host:port}
 * (or set {@code BATON_CONNECT}; the examples' test starts an embedded ZooKeeper and two of these).
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
public class ReportApplication {
  public static void main(String[] args) {
    SpringApplication.run(ReportApplication.class, args);
  }
}
