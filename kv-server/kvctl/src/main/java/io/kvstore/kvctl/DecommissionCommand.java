package io.kvstore.kvctl;

import picocli.CommandLine.Command;

/** {@code kvctl decommission}: the node streams its keys away and leaves the map. */
@Command(name = "decommission", mixinStandardHelpOptions = true,
        description = {"Takes the node given by --node out of the cluster: it streams its keys to the nodes that gain them,"
                + " then leaves the map (POST /v0/admin/decommission?async=true on that node). Follows the change with a"
                + " progress bar on stderr until it is done; stop the node's process then.",
            "Exit 1 with the reason if the node refuses (fewer owners than the replication factor would be left, another"
                + " change in progress) or the change fails or is cancelled."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.3:8080 decommission",
            "  kvctl --node http://10.0.0.3:8080 decommission --no-wait   # prints the change's id"})
final class DecommissionCommand extends ChangeCommand {
    @Override
    public Integer call() {
        return startAndFollow(node(), "POST", "/v0/admin/decommission?async=true");
    }
}
