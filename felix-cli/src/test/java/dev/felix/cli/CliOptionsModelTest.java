package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The help every command prints, checked over the whole command model (every command but {@code bench},
 * whose help its own module owns): a one-line summary that stands alone, every option's default shown,
 * every positional argument described, one label style, and every numeric option range-checked.
 */
class CliOptionsModelTest {

    /** Commands whose options and help are owned elsewhere. */
    private static final List<String> NOT_HERE = List.of("felix bench", "felix help");

    private static List<CommandSpec> commands() {
        List<CommandSpec> all = new ArrayList<>();
        collect(new CommandLine(new FelixCommand()), all);
        return all;
    }

    private static void collect(CommandLine cmd, List<CommandSpec> into) {
        String name = cmd.getCommandSpec().qualifiedName();
        if (NOT_HERE.stream().anyMatch(name::startsWith)) {
            return;
        }
        into.add(cmd.getCommandSpec());
        for (CommandLine sub : cmd.getSubcommands().values()) {
            collect(sub, into);
        }
    }

    @Test
    void everyCommandHasAOneLineSummaryThatStandsAlone() {
        for (CommandSpec c : commands()) {
            String[] description = c.usageMessage().description();
            assertThat(description).as(c.qualifiedName()).isNotEmpty();
            String summary = description[0];
            assertThat(summary).as(c.qualifiedName() + " summary").endsWith(".").doesNotStartWith(" ");
            // The command list shows the summary after a ~12-column name: it must fit one 80-column line.
            if (c.parent() != null) {
                assertThat(summary.length()).as(c.qualifiedName() + " summary: " + summary).isLessThanOrEqualTo(66);
            }
            if (description.length > 1) {
                assertThat(description[1]).as(c.qualifiedName() + ": a blank line after the summary").isEmpty();
            }
        }
    }

    @Test
    void everyOptionShowsItsDefaultAndEveryArgumentIsDescribed() {
        for (CommandSpec c : commands()) {
            for (OptionSpec o : c.options()) {
                if (o.usageHelp() || o.versionHelp() || o.arity().max == 0) {
                    continue; // flags: present or not
                }
                assertThat(String.join(" ", o.description())).as(c.qualifiedName() + " " + o.longestName())
                        .contains("Default: ");
                assertThat(o.paramLabel()).as(c.qualifiedName() + " " + o.longestName() + " label")
                        .matches("[A-Z0-9_:/=\\[\\],.]+");
            }
            for (PositionalParamSpec p : c.positionalParameters()) {
                assertThat(String.join(" ", p.description())).as(c.qualifiedName() + " " + p.paramLabel())
                        .isNotBlank();
                assertThat(p.paramLabel()).matches("[A-Z0-9_:/=\\[\\],.]+");
            }
        }
    }

    @Test
    void everyNumericOptionHasARangeCheckingConverterOfItsType() throws Exception {
        List<Class<?>> numeric = List.of(int.class, long.class, Integer.class, Long.class, Duration.class);
        Map<Class<?>, Class<?>> boxes = Map.of(int.class, Integer.class, long.class, Long.class);
        for (CommandSpec c : commands()) {
            List<ArgSpec> args = new ArrayList<>(c.options());
            args.addAll(c.positionalParameters());
            for (ArgSpec a : args) {
                String what = c.qualifiedName() + " " + (a instanceof OptionSpec o ? o.longestName() : a.paramLabel());
                CommandLine.ITypeConverter<?>[] converters = a.converters();
                if (numeric.contains(a.type())) {
                    assertThat(converters).as(what + " has a range-checking converter").isNotEmpty();
                    assertThat(converters[0].getClass().getEnclosingClass()).as(what).isEqualTo(OptionTypes.class);
                }
                for (CommandLine.ITypeConverter<?> conv : converters) {
                    Object sample = sample(conv);
                    // A list option (--broker a,b,c) converts each element: the element type must fit.
                    Class<?> field = a.isMultiValue() ? a.auxiliaryTypes()[0] : a.type();
                    Class<?> type = boxes.getOrDefault(field, field);
                    assertThat(sample).as(what + ": converter output fits the field").isInstanceOf(type);
                }
            }
        }
    }

    private static Object sample(CommandLine.ITypeConverter<?> conv) throws Exception {
        for (String s : List.of("1", "1s", "latest", "on_commit", "memory", "quorum", "127.0.0.1:1", "00".repeat(32))) {
            try {
                return conv.convert(s);
            } catch (CommandLine.TypeConversionException e) {
                // try the next sample
            }
        }
        throw new AssertionError("no sample converts with " + conv.getClass());
    }
}
