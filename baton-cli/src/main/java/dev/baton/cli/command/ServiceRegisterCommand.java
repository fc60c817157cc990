package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.discovery.HealthCheck;
import dev.baton.discovery.RegisterOptions;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton service register}: an instance registered for as long as baton runs, or as long
 * as a command runs, for scripts and tests (curator-x-discovery's JSON layout).
 */
@Command(name = "register", mixinStandardHelpOptions = true,
    description = "Registers an instance of <service> below <base> (an ephemeral node in curator-x-discovery's JSON"
        + " layout) and holds it until Ctrl-C, or, given a command after --, while that command runs; the"
        + " registration ends with it. Exits with the command's exit code. With --health, checks the instance"
        + " and marks it down or up again meanwhile.")
public final class ServiceRegisterCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;

  @Parameters(index = "0", paramLabel = "<base>", description = "The registry's base path, e.g. /services.")
  String base;

  @Parameters(index = "1", paramLabel = "<service>", description = "The service's name, e.g. orders.")
  String service;

  @Parameters(index = "2..*", arity = "0..*", paramLabel = "<command>", description = "A command to run while registered, after --.")
  List<String> command;

  @Option(names = "--address", required = true, paramLabel = "HOST", description = "The instance's address.")
  String address;

  @Option(names = "--port", paramLabel = "PORT", description = "The instance's port.")
  Integer port;

  @Option(names = "--id", paramLabel = "ID", description = "The instance's id. Default: a new UUID.")
  String id;

  @Option(names = "--payload", paramLabel = "KEY=VALUE", description = "A payload entry; repeat for more.")
  Map<String, String> payload = new LinkedHashMap<>();

  @Option(names = "--weight", paramLabel = "N",
      description = "The payload's weight, which 'service pick --strategy weighted-random' (and the library's"
          + " WEIGHTED_RANDOM) honours: 0 or more, 0 never picked while another is up. Default: none (counts as 1)."
          + " Written as a JSON number, which --payload weight=N (text) is not.")
  Integer weight;

  @Option(names = "--zone", paramLabel = "ZONE",
      description = "The payload's zone, which 'service pick --zone' (and the library's preferringZone) prefers.")
  String zone;

  @Mixin HealthOption health;

  /** Released by Ctrl-C; tests release it to end the registration. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws InterruptedException {
    LockCommand.checkPath(base, "<base>", "service registry base path", spec);
    if (port != null && (port < 1 || port > 65535)) {
      throw new ParameterException(spec.commandLine(), "--port must be between 1 and 65535, was " + port);
    }
    Map<String, Object> fullPayload = new LinkedHashMap<>(payload);
    if (weight != null) {
      if (weight < 0) {
        throw new ParameterException(spec.commandLine(), "--weight must be 0 or more, was " + weight);
      }
      putOnce(fullPayload, "weight", weight, "--weight"); // a JSON number: pickers read no other weight
    }
    if (zone != null) {
      if (zone.isBlank()) {
        throw new ParameterException(spec.commandLine(), "--zone must not be blank");
      }
      putOnce(fullPayload, "zone", zone, "--zone");
    }
    HealthCheck check = health.check(spec);
    RegisterOptions options = check == null ? RegisterOptions.defaults()
        : RegisterOptions.defaults().withHealthCheck(check, health.interval);
    ServiceInstance.Builder builder;
    try {
      builder = ServiceInstance.builder(service).address(address).payload(fullPayload);
      if (port != null) {
        builder.port(port);
      }
      if (id != null) {
        builder.id(id);
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    ServiceInstance instance = builder.build();
    PrintWriter out = spec.commandLine().getOut();
    try (Baton baton = connection.open(spec); ServiceRegistry registry = ServiceRegistry.open(baton, base);
         Registration registration = registry.register(instance, options)) {
      out.println("registered " + ServiceCommand.describe(instance) + " as " + base + "/" + service + "/" + instance.id()
          + (check == null ? "" : ", checked every " + health.interval.toMillis() + " ms" + " at " + health.url));
      out.flush();
      if (command != null && !command.isEmpty()) {
        // The registration is not a lock: losing it does not stop the command, so no guard here.
        return GuardedCommand.run("baton service register", command, Map.of("BATON_INSTANCE_ID", instance.id()),
            Duration.ofSeconds(5), spec.commandLine().getErr(), "the registration", stop -> { });
      }
      UntilStopped.await(stop, "baton-register");
    }
    return BatonCommand.OK;
  }

  /** Adds {@code key} unless {@code --payload} gave it too: two values for one field is a mistake to name. */
  private void putOnce(Map<String, Object> map, String key, Object value, String option) {
    if (map.containsKey(key)) {
      throw new ParameterException(spec.commandLine(), option + " and --payload " + key + "=" + map.get(key)
          + " both set the payload's " + key + "; give one");
    }
    map.put(key, value);
  }
}
