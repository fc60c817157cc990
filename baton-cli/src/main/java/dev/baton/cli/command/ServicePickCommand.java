package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.discovery.PickOptions;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton service pick}: one live instance of a service, chosen as a caller of the library
 * would ({@code ServiceView.pickWith}), for scripts that need an address to call.
 */
@Command(name = "pick", mixinStandardHelpOptions = true,
    description = {"Prints one live, enabled instance of <service> below <base>, chosen by --strategy among those"
        + " of --zone if it has any (else among all); exits 1 if none is up.",
        "Each run is a fresh choice: round-robin therefore starts its cycle every time (the first instance in id"
            + " order); random and weighted-random spread the calls of many runs."})
public final class ServicePickCommand implements Callable<Integer> {
  /** The strategies a one-shot pick can use; sticky needs a view that outlives the command, so it is not offered. */
  static final Map<String, PickStrategy> STRATEGIES = Map.of(
      "round-robin", PickStrategy.ROUND_ROBIN,
      "random", PickStrategy.RANDOM,
      "weighted-random", PickStrategy.WEIGHTED_RANDOM);

  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<base>", description = "The registry's base path, e.g. /services.")
  String base;

  @Parameters(index = "1", paramLabel = "<service>", description = "The service's name, e.g. orders.")
  String service;

  @Option(names = "--strategy", paramLabel = "STRATEGY", defaultValue = "weighted-random",
      description = "round-robin, random or weighted-random (by the payload's weight, 1 if none; the same as"
          + " random when no instance has one). Default: ${DEFAULT-VALUE}.")
  String strategy;

  @Option(names = "--zone", paramLabel = "ZONE",
      description = "Prefer instances whose payload zone is ZONE; others only when it has none up.")
  String zone;

  @Override
  public Integer call() {
    LockCommand.checkPath(base, "<base>", "service registry base path", spec);
    PickStrategy chosen = STRATEGIES.get(strategy);
    if (chosen == null) {
      throw new ParameterException(spec.commandLine(),
          "--strategy must be round-robin, random or weighted-random, was '" + strategy + "'");
    }
    PickOptions options = PickOptions.of(chosen);
    if (zone != null) {
      try {
        options = options.preferringZone(zone);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--zone: " + e.getMessage());
      }
    }
    try (Baton baton = connection.open(spec); ServiceRegistry registry = ServiceRegistry.open(baton, base)) {
      ServiceView view;
      try {
        view = registry.watch(service);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "<service>: " + e.getMessage());
      }
      try (ServiceView instances = view) {
        Optional<ServiceInstance> picked = instances.pickWith(options);
        if (picked.isEmpty()) {
          throw new CliException(nonePicked(instances.instances()));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("base", base, "service", service,
              "instance", JsonOutput.instance(picked.get())));
          return BatonCommand.OK;
        }
        out.println(ServiceCommand.describe(picked.get()));
        out.flush();
        return BatonCommand.OK;
      }
    }
  }

  private String nonePicked(List<ServiceInstance> all) {
    String why = all.isEmpty() ? "it has no instance"
        : all.size() + (all.size() == 1 ? " instance, down" : " instances, all down")
            + " (baton service " + base + " " + service + " shows them)";
    return "no live instance of " + service + " below " + base + " to pick: " + why;
  }
}
