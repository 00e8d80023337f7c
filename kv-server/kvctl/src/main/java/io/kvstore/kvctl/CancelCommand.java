package io.kvstore.kvctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvctl cancel ID}: the claimant rolls change ID back. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Cancels a membership change that has not reached its last step (DELETE /v0/admin/changes/ID): the"
                + " claimant rolls back to the map before it and the owners drop what its streams copied.",
            "Exit 1 with the node's reason for a change the claimant does not drive (404) or one that is over or"
                + " finishing (409)."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl changes            # the ids", "  kvctl cancel 1796621201311"})
final class CancelCommand extends KvctlCommand {
    @Parameters(paramLabel = "ID", description = "The change's id, as kvctl changes lists it.")
    long id;

    @Override
    public Integer call() {
        String node = node();
        http().send(node, "DELETE", "/v0/admin/changes/" + id).expect(202);
        out().println("change " + id + " is being cancelled: kvctl changes shows it end cancelled");
        out().flush();
        return Kvctl.OK;
    }
}
