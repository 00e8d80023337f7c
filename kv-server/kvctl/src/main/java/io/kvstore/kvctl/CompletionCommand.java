package io.kvstore.kvctl;

import picocli.AutoComplete;
import picocli.CommandLine.Command;

/** {@code kvctl completion}: the bash (and zsh) completion script of every command and option. */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = "Prints a bash completion script for kvctl (zsh loads it too, after bashcompinit).",
        footerHeading = "%nExamples:%n",
        footer = {"  source <(java -jar kvctl.jar completion)",
            "  kvctl completion > /etc/bash_completion.d/kvctl     # with kvctl a script running the jar"})
final class CompletionCommand extends KvctlCommand {
    @Override
    public Integer call() {
        out().print(AutoComplete.bash("kvctl", spec.root().commandLine()));
        out().flush();
        return Kvctl.OK;
    }
}
