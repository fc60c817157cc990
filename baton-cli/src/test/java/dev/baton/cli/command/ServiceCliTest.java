package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.baton.cli.BatonCommand;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code baton service register} with health, weight and zone, and {@code baton service pick} (issue 33). */
class ServiceCliTest extends StandaloneZooKeeper {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Cli.Run cli(String... args) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 2);
    all[args.length] = "--connect";
    all[args.length + 1] = cluster.connectString();
    return Cli.run(all);
  }

  /** A {@code service register} running on its own thread until {@link #stop()}, as Ctrl-C would end it. */
  static final class Registering {
    final List<CountDownLatch> stops = new CopyOnWriteArrayList<>();
    final StringWriter err = new StringWriter();
    final CompletableFuture<Integer> exit;

    Registering(String... args) {
      CommandLine commandLine = BatonCommand.newCommandLine(new CommandLine.IFactory() {
        @Override
        public <K> K create(Class<K> type) throws Exception {
          K made = CommandLine.defaultFactory().create(type);
          if (made instanceof ServiceRegisterCommand r) {
            stops.add(r.stop);
          }
          return made;
        }
      });
      commandLine.setOut(new PrintWriter(new StringWriter(), true));
      commandLine.setErr(new PrintWriter(err, true));
      String[] all = java.util.Arrays.copyOf(args, args.length + 2);
      all[args.length] = "--connect";
      all[args.length + 1] = cluster.connectString();
      exit = CompletableFuture.supplyAsync(() -> commandLine.execute(all));
    }

    int stop() {
      stops.forEach(CountDownLatch::countDown);
      return exit.join();
    }
  }

  @Test
  void registerWithHttpHealth_weightAndZone_marksTheInstanceDownAndUpAgain() throws Exception {
    AtomicInteger status = new AtomicInteger(200);
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/health", exchange -> {
      exchange.sendResponseHeaders(status.get(), -1);
      exchange.close();
    });
    server.start();
    Registering register = new Registering("service", "register", "/cli33-reg", "orders", "--address", "10.0.0.9",
        "--port", "8080", "--id", "o-1", "--weight", "3", "--zone", "eu-1",
        "--health", "http://127.0.0.1:" + server.getAddress().getPort() + "/health", "--health-interval", "100ms");
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/cli33-reg")) {
      await().atMost(WAIT).until(() -> registry.instances("orders").size() == 1);
      ServiceInstance up = registry.instances("orders").get(0);
      assertThat(up.payload()).containsEntry("weight", 3).containsEntry("zone", "eu-1").containsEntry("health", "UP");
      assertThat(up.isEnabled()).isTrue();

      status.set(503);
      await().atMost(WAIT).until(() -> !registry.instances("orders").get(0).isEnabled());
      assertThat(registry.instances("orders").get(0).payload()).containsEntry("health", "DOWN");
      status.set(200);
      await().atMost(WAIT).until(() -> registry.instances("orders").get(0).isEnabled());
      assertThat(register.stop()).as(register.err.toString()).isZero();
      await().atMost(WAIT).until(() -> registry.instances("orders").isEmpty());
    } finally {
      register.stops.forEach(CountDownLatch::countDown);
      server.stop(0);
    }
  }

  @Test
  void registerWithTcpHealth_isDownOnceNothingListens() throws Exception {
    ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Registering register = new Registering("service", "register", "/cli33-tcp", "billing", "--address", "10.0.0.8",
        "--id", "b-1", "--health", "tcp://127.0.0.1:" + listening.getLocalPort(), "--health-interval", "100ms");
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/cli33-tcp")) {
      await().atMost(WAIT).until(() -> registry.instances("billing").size() == 1
          && "UP".equals(registry.instances("billing").get(0).payload().get("health")));
      listening.close();
      await().atMost(WAIT).until(() -> !registry.instances("billing").get(0).isEnabled());
    } finally {
      listening.close();
      assertThat(register.stop()).as(register.err.toString()).isZero();
    }
  }

  @Test
  void pick_choosesByZoneAndWeight_andExitsOneWhenNoneIsUp() throws Exception {
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/cli33-pick");
         Registration a = registry.register(ServiceInstance.builder("orders").id("a").address("10.0.0.1").port(80)
             .payload(Map.of("zone", "eu-1", "weight", 1)).build());
         Registration b = registry.register(ServiceInstance.builder("orders").id("b").address("10.0.0.2").port(80)
             .payload(Map.of("zone", "us-1", "weight", 1)).build());
         Registration c = registry.register(ServiceInstance.builder("orders").id("c").address("10.0.0.3").port(80)
             .payload(Map.of("zone", "eu-1", "weight", 0)).build());
         Registration down = registry.register(ServiceInstance.builder("billing").id("d").address("10.0.0.4")
             .enabled(false).build())) {
      Cli.Run eu = cli("service", "pick", "/cli33-pick", "orders", "--zone", "eu-1");
      assertThat(eu.exitCode()).as(eu.err()).isZero();
      assertThat(eu.out()).startsWith("id=a address=10.0.0.1:80 ");

      Cli.Run us = cli("service", "pick", "/cli33-pick", "orders", "--zone", "us-1", "--strategy", "random", "--json");
      assertThat(us.exitCode()).as(us.err()).isZero();
      JsonNode picked = JSON.readTree(us.out());
      assertThat(picked.get("service").asText()).isEqualTo("orders");
      assertThat(picked.get("instance").get("id").asText()).isEqualTo("b");
      assertThat(picked.get("instance").get("port").asInt()).isEqualTo(80);

      assertThat(cli("service", "pick", "/cli33-pick", "orders", "--strategy", "round-robin").out())
          .startsWith("id=a ");
      assertThat(cli("service", "pick", "/cli33-pick", "orders", "--zone", "ap-1").out())
          .as("another zone falls back to all; weight 0 is never picked").doesNotStartWith("id=c ");

      Cli.Run allDown = cli("service", "pick", "/cli33-pick", "billing");
      assertThat(allDown.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(allDown.err()).contains("no live instance of billing below /cli33-pick to pick: 1 instance, down");
      Cli.Run none = cli("service", "pick", "/cli33-pick", "nothing");
      assertThat(none.exitCode()).isEqualTo(BatonCommand.FAILURE);
      assertThat(none.err()).contains("no live instance of nothing below /cli33-pick to pick: it has no instance");
    }
  }

  @Test
  void badRegisterAndPickOptions_areUsageErrorsNamingTheOption_withNothingRegistered() {
    String[][] cases = {
        {"--health", "ftp://127.0.0.1/x", "--health must be http"},
        {"--health", "tcp://127.0.0.1", "--health must be http"},
        {"--health", "http:///nohost", "--health must be http"},
        {"--health-interval", "1s", "--health-interval needs --health"},
        {"--health", "tcp://127.0.0.1:1", "--health-interval", "0s", "--health-interval must be more than 0"},
        {"--weight", "-1", "--weight must be 0 or more"},
        {"--weight", "2", "--payload", "weight=3", "--weight and --payload weight=3"},
        {"--zone", " ", "--zone must not be blank"},
    };
    for (String[] bad : cases) {
      String[] args = new String[bad.length - 1 + 6];
      System.arraycopy(new String[] {"service", "register", "/cli33-bad", "orders", "--address", "10.0.0.1"}, 0, args, 0, 6);
      System.arraycopy(bad, 0, args, 6, bad.length - 1);
      Cli.Run run = cli(args);
      assertThat(run.exitCode()).as(String.join(" ", bad)).isEqualTo(BatonCommand.USAGE);
      assertThat(run.err()).contains(bad[bad.length - 1]);
    }
    Cli.Run sticky = cli("service", "pick", "/cli33-bad", "orders", "--strategy", "sticky");
    assertThat(sticky.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(sticky.err()).contains("--strategy must be round-robin, random or weighted-random, was 'sticky'");
    Cli.Run blankZone = cli("service", "pick", "/cli33-bad", "orders", "--zone", "");
    assertThat(blankZone.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(blankZone.err()).contains("--zone");
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/cli33-bad")) {
      assertThat(registry.services()).isEmpty();
    }
  }
}
