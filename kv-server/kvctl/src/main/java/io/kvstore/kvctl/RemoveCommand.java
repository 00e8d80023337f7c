package io.kvstore.kvctl;

import io.kvstore.cluster.membership.NodeUrl;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvctl remove --url U}: a dead node leaves the map; the survivors re-replicate its keys. */
@Command(name = "remove", mixinStandardHelpOptions = true,
        description = {"Removes a dead node from the cluster (DELETE /v0/admin/nodes?url=U&async=true on --node): the"
                + " surviving replicas of its keys stream them to the nodes that gain them. A node that still answers must"
                + " be decommissioned instead. Follows the change like decommission.",
            "--force commits the removal without a majority of the metadata group: only when that majority is lost for"
                + " good, never when it may only be cut off."},
        footerHeading = "%nExamples:%n",
        footer = {"  kvctl --node http://10.0.0.1:8080 remove --url http://10.0.0.3:8080",
            "  kvctl remove --url http://10.0.0.3:8080 --force"})
final class RemoveCommand extends ChangeCommand {
    @Option(names = "--url", required = true, paramLabel = "URL", description = "The dead node's URL, as the map names it.")
    String url;

    @Option(names = "--force", description = "Remove it on the claimant's word alone (see above).")
    boolean force;

    @Override
    public Integer call() {
        try {
            NodeUrl.parse(url);
        } catch (IllegalArgumentException e) {
            throw KvctlException.usage("--url: " + e.getMessage());
        }
        return startAndFollow(node(), "DELETE", "/v0/admin/nodes?url=" + URLEncoder.encode(url, StandardCharsets.UTF_8)
                + "&async=true" + (force ? "&force=true" : ""));
    }
}
