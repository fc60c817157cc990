package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code baton config} and {@code baton service}: what a config key holds, which instances a service has. */
class ConfigAndServiceCommandTest extends StandaloneZooKeeper {

  @Test
  void configList_printsEveryKeyInOrder_andGetPrintsValueAndVersion() {
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli-config")) {
      config.create("db/url", "jdbc:postgresql://db/shop");
      config.create("db/pool-size", "10");
      config.update("db/pool-size", "20");

      Cli.Run list = Cli.run("config", "list", "/cli-config", "--connect", cluster.connectString());
      Cli.Run get = Cli.run("config", "get", "/cli-config", "db/pool-size", "--connect", cluster.connectString());

      assertThat(list.exitCode()).as(list.err()).isZero();
      assertThat(list.out().lines()).containsExactly("db/pool-size=20", "db/url=jdbc:postgresql://db/shop");
      assertThat(get.exitCode()).as(get.err()).isZero();
      assertThat(get.out().lines()).containsExactly("20", "version=1");
    }
  }

  @Test
  void configGet_missingKey_failsNamingIt_andBadInputIsAUsageError() {
    Cli.Run missing = Cli.run("config", "get", "/cli-config-empty", "no/such", "--connect", cluster.connectString());
    Cli.Run badPrefix = Cli.run("config", "list", "config", "--connect", cluster.connectString());
    Cli.Run badKey = Cli.run("config", "get", "/cli-config", "/db/url", "--connect", cluster.connectString());

    assertThat(missing.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(missing.err()).contains("no key no/such below /cli-config-empty");
    assertThat(badPrefix.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badPrefix.err()).contains("<prefix>").contains("'config'");
    assertThat(badKey.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badKey.err()).contains("<key>").contains("'/db/url'");
  }

  @Test
  void service_listsServices_thenTheLiveInstancesOfOne() {
    ServiceRegistry registry = ServiceRegistry.open(baton, "/cli-services");
    try (Registration a = registry.register(ServiceInstance.builder("orders").id("a").address("10.0.0.5").port(8080)
            .payload(Map.of("zone", "eu")).build());
        Registration b = registry.register(ServiceInstance.builder("orders").id("b").address("10.0.0.6").port(8080).build());
        Registration c = registry.register(ServiceInstance.builder("billing").id("c").address("10.0.0.7").build())) {
      Cli.Run services = Cli.run("service", "/cli-services", "--connect", cluster.connectString());
      Cli.Run orders = Cli.run("service", "/cli-services", "orders", "--connect", cluster.connectString());

      assertThat(services.exitCode()).as(services.err()).isZero();
      assertThat(services.out().lines()).containsExactly("billing", "orders");
      assertThat(orders.exitCode()).as(orders.err()).isZero();
      assertThat(orders.out().lines()).containsExactly(
          "id=a address=10.0.0.5:8080 enabled=true payload={zone=eu}",
          "id=b address=10.0.0.6:8080 enabled=true payload={}");
    }
    Cli.Run gone = Cli.run("service", "/cli-services", "orders", "--connect", cluster.connectString());
    assertThat(gone.out().strip()).isEqualTo("no live instance of orders below /cli-services");
    registry.close();
  }

  @Test
  void service_badNames_areUsageErrors() {
    Cli.Run badBase = Cli.run("service", "services", "--connect", cluster.connectString());
    Cli.Run badService = Cli.run("service", "/cli-services", "a/b", "--connect", cluster.connectString());

    assertThat(badBase.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badBase.err()).contains("<base>");
    assertThat(badService.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badService.err()).contains("<service>");
  }
}
