package io.kvstore.kvctl;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * kvctl, the operator's command line of a kvstore cluster. Each subcommand is a class of this package;
 * this one holds what they share (the node to talk to, credentials, TLS, the process's streams) and maps
 * outcomes to exit codes:
 *
 * <ul>
 *   <li>{@value #OK}: done;</li>
 *   <li>{@value #REFUSED}: the node refused or the operation failed (its message on stderr);</li>
 *   <li>{@value #USAGE}: a usage error (an unknown option, a URL that does not parse, a file that cannot be read);</li>
 *   <li>{@value #UNREACHABLE}: the node did not answer.</li>
 * </ul>
 */
@Command(name = "kvctl", mixinStandardHelpOptions = true, versionProvider = Kvctl.Version.class,
        description = "Looks after a kvstore cluster: its status, its ring, membership changes, repair, cleanup, scrub,"
                + " and the keys themselves.",
        subcommands = {
            StatusCommand.class, RingCommand.class, ClusterCommand.class, ChangesCommand.class,
            DecommissionCommand.class, RemoveCommand.class, CancelCommand.class,
            RepairCommand.class, CleanupCommand.class, ScrubCommand.class,
            GetCommand.class, PutCommand.class, DeleteCommand.class, ScanCommand.class,
            CompletionCommand.class, CommandLine.HelpCommand.class},
        footerHeading = "%nExit codes:%n",
        footer = {"  0  done", "  1  the node refused or the operation failed (the reason on stderr)",
            "  2  usage error", "  3  the node did not answer",
            "", "Environment: KVCTL_NODE (the node, as --node), KVCTL_TOKEN (the bearer token, as --token-file),",
            "KVCTL_SECRET_FILE (the cluster secret's file, as --secret-file)."})
public final class Kvctl implements Runnable {
    /** The JDK HttpClient's limit on interim answers to one request. */
    private static final String MAX_INTERIM_ANSWERS = "jdk.httpclient.maxNonFinalResponses";

    public static final int OK = 0;
    public static final int REFUSED = 1;
    public static final int USAGE = 2;
    public static final int UNREACHABLE = 3;

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    private final Map<String, String> environment;
    private final InputStream stdin;
    private final OutputStream stdout;
    private final boolean terminal;

    /**
     * A kvctl reading {@code environment} for {@code KVCTL_*}, values from {@code stdin} and writing raw
     * values to {@code stdout}; {@code terminal}: progress redraws one line instead of printing a line per step.
     */
    Kvctl(Map<String, String> environment, InputStream stdin, OutputStream stdout, boolean terminal) {
        this.environment = environment;
        this.stdin = stdin;
        this.stdout = stdout;
        this.terminal = terminal;
    }

    public static void main(String[] args) {
        // A node answers a long scrub, repair or cleanup that is waited for with an interim answer every
        // half idle timeout; the JDK's HttpClient gives up after 8 unless told otherwise.
        if (System.getProperty(MAX_INTERIM_ANSWERS) == null) {
            System.setProperty(MAX_INTERIM_ANSWERS, "1000000");
        }
        Kvctl kvctl = new Kvctl(System.getenv(), System.in, System.out, System.console() != null);
        System.exit(commandLine(kvctl).execute(args));
    }

    /** The command line of {@code kvctl}, with its exit codes; its out and err may be replaced. */
    static CommandLine commandLine(Kvctl kvctl) {
        CommandLine line = new CommandLine(kvctl);
        line.setExecutionExceptionHandler(Kvctl::failed);
        line.setCaseInsensitiveEnumValuesAllowed(true);
        return line;
    }

    private static int failed(Exception error, CommandLine line, CommandLine.ParseResult parsed) {
        PrintWriter err = line.getErr();
        if (error instanceof KvctlException failure) {
            err.println("kvctl " + line.getCommandName() + ": " + failure.getMessage());
            err.flush();
            return failure.exitCode();
        }
        if (error instanceof CommandLine.ParameterException usage) {
            err.println("kvctl " + line.getCommandName() + ": " + usage.getMessage());
            err.flush();
            return USAGE;
        }
        err.println("kvctl " + line.getCommandName() + ": " + error);
        error.printStackTrace(err);
        err.flush();
        return REFUSED;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    Map<String, String> environment() {
        return environment;
    }

    InputStream stdin() {
        return stdin;
    }

    OutputStream stdout() {
        return stdout;
    }

    boolean terminal() {
        return terminal;
    }

    /** The version of the jar kvctl runs from. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Kvctl.class.getPackage().getImplementationVersion();
            return new String[] {"kvctl " + (version == null ? "(development build)" : version)};
        }
    }
}
