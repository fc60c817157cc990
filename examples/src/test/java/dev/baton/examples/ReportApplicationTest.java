package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.examples.spring.NightlyReport;
import dev.baton.examples.spring.OrderService;
import dev.baton.examples.spring.ReportApplication;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Two nodes of the Spring Boot example on one ensemble: the report runs on one at a time. */
class ReportApplicationTest {

  @Test
  void twoNodes_scheduledReportUnderShedLock_neverRunsOnBothAtOnce() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
         ConfigurableApplicationContext node1 = node(zk);
         ConfigurableApplicationContext node2 = node(zk)) {
      int before = NightlyReport.runs();

      await().atMost(Duration.ofSeconds(30)).until(() -> NightlyReport.runs() >= before + 10);

      assertThat(NightlyReport.mostAtOnce()).isEqualTo(1);
      assertThat(node1.getBean(OrderService.class).ship("order-1")).isEqualTo(1);
      assertThat(node2.getBean(OrderService.class).ship("order-1")).isEqualTo(1);
    }
  }

  private static ConfigurableApplicationContext node(EmbeddedZooKeeper zk) {
    return new SpringApplicationBuilder(ReportApplication.class)
        .run("--baton.connect-string=" + zk.connectString(), "--report.every=20ms", "--spring.main.banner-mode=off");
  }
}
