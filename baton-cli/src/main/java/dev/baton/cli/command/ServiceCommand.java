package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton service}: the services of a registry, or the live instances of one (Baton's or
 * curator-x-discovery's). Reads only.
 */
@Command(name = "service", mixinStandardHelpOptions = true, subcommands = {ServiceRegisterCommand.class, ServicePickCommand.class},
    description = "Prints the services registered below <base>, or, given <service>, its live instances:"
        + " id, address:port, enabled, payload.")
public final class ServiceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin JsonOutput json;

  // Optional to picocli only so that 'service register' does not need it; call() requires it.
  @Parameters(index = "0", arity = "0..1", paramLabel = "<base>", description = "The registry's base path, e.g. /services.")
  String base;

  @Parameters(index = "1", arity = "0..1", paramLabel = "<service>", description = "A service's name, e.g. orders.")
  String service;

  @Override
  public Integer call() {
    if (base == null) {
      throw new ParameterException(spec.commandLine(), "Missing required parameter: '<base>'");
    }
    LockCommand.checkPath(base, "<base>", "service registry base path", spec);
    try (Baton baton = connection.open(spec)) {
      ServiceRegistry registry = ServiceRegistry.open(baton, base);
      PrintWriter out = spec.commandLine().getOut();
      if (service == null) {
        Set<String> services = new TreeSet<>(registry.services());
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("base", base, "services", services));
          registry.close();
          return BatonCommand.OK;
        }
        if (services.isEmpty()) {
          out.println("no services below " + base);
        }
        services.forEach(out::println);
      } else {
        List<ServiceInstance> instances;
        try {
          instances = registry.instances(service);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "<service>: " + e.getMessage());
        }
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("base", base, "service", service, "instances",
              instances.stream().sorted(java.util.Comparator.comparing(ServiceInstance::id))
                  .map(JsonOutput::instance).toList()));
          registry.close();
          return BatonCommand.OK;
        }
        if (instances.isEmpty()) {
          out.println("no live instance of " + service + " below " + base);
        }
        instances.stream().sorted(java.util.Comparator.comparing(ServiceInstance::id))
            .forEach(instance -> out.println(describe(instance)));
      }
      out.flush();
      registry.close();
      return BatonCommand.OK;
    }
  }

  static String describe(ServiceInstance instance) {
    return "id=" + instance.id()
        + " address=" + instance.address() + (instance.port().isPresent() ? ":" + instance.port().getAsInt() : "")
        + (instance.sslPort().isPresent() ? " ssl-port=" + instance.sslPort().getAsInt() : "")
        + " enabled=" + instance.isEnabled()
        + " payload=" + instance.payload();
  }
}
