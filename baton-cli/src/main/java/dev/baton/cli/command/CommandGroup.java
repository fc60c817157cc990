package dev.baton.cli.command;

import dev.baton.cli.BatonCommand;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that only groups others ({@code baton lock}, {@code baton queue}): alone it prints their usage. */
public abstract class CommandGroup implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return BatonCommand.USAGE;
  }
}
