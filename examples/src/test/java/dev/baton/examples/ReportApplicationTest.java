package dev.baton.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.examples.spring.NightlyReport;
import dev.baton.examples.spring.OrderService;
import dev.baton.examples.spring.ReportApplication;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two nodes of the Spring Boot 4 example on one ensemble, from its application.yml: the report runs
 * on one at a time, and its title comes from the config center and follows a change there.
 */
class ReportApplicationTest {

  @Test
  void twoNodes_scheduledReportUnderShedLock_neverRunsOnBothAtOnce_titleFromTheConfigCenter() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
         Baton admin = Baton.connect(zk.connectString());
         ConfigCenter config = ConfigCenter.open(admin, "/config/report")) {
      config.set("report/title", "Stock at 02:00");
      try (ConfigurableApplicationContext node1 = node(zk);
           ConfigurableApplicationContext node2 = node(zk)) {
        int before = NightlyReport.runs();

        await().atMost(Duration.ofSeconds(30)).until(() -> NightlyReport.runs() >= before + 10);

        assertThat(NightlyReport.mostAtOnce()).isEqualTo(1);
        assertThat(node1.getBean(OrderService.class).ship("order-1")).isEqualTo(1);
        assertThat(node2.getBean(OrderService.class).ship("order-1")).isEqualTo(1);
        NightlyReport report = node1.getBean(NightlyReport.class);
        assertThat(node1.getEnvironment().getProperty("report.title")).isEqualTo("Stock at 02:00");

        config.set("report/title", "Stock at 03:00");

        await().atMost(Duration.ofSeconds(30)).until(() -> "Stock at 03:00".equals(report.lastTitle())
            || "Stock at 03:00".equals(node2.getBean(NightlyReport.class).lastTitle()));
      }
    }
  }

  private static ConfigurableApplicationContext node(EmbeddedZooKeeper zk) {
    return new SpringApplicationBuilder(ReportApplication.class)
        .run("--baton.connect-string=" + zk.connectString(), "--report.every=20ms", "--spring.main.banner-mode=off");
  }
}
