package io.xrpc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java block of README.md compiles as printed, imports included (a new user once found the
 * annotations' package with {@code javap}). A block is imports, declarations and statements, as a
 * reader pastes them: the imports head a class, the declarations become its members, and the
 * statements the body of one method. What a block takes as given (a {@code Greeter}, key managers,
 * a token source) and says so in a comment is a protected member of {@link Givens}.
 */
public class ReadmeExamplesTest {
    /** What README blocks take as given. */
    public abstract static class Givens {
        public interface Greeter {
            String hello(String name);
        }

        public interface Tokens {
            String current();
        }

        public interface Verifier {
            boolean accepts(String credentials);
        }

        protected KeyManagerFactory keyManagerFactory;
        protected KeyManagerFactory clientKeyManagerFactory;
        protected TrustManagerFactory trustManagerFactory;
        protected Tokens tokens;
        protected Verifier verifier;
    }

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern DECLARATION = Pattern.compile(
            "^(@|public |protected |private |static |abstract |final |interface |class |record |enum ).*");

    @Test
    void everyJavaBlockOfTheReadmeCompilesAsPrinted(@TempDir Path out) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        List<JavaFileObject> units = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(readme);
        while (m.find()) {
            int line = readme.substring(0, m.start()).split("\n", -1).length + 1;
            units.add(unit("ReadmeBlockAtLine" + line, m.group(1)));
        }
        assertThat(units).as("Java blocks in README.md").hasSizeGreaterThanOrEqualTo(5);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        boolean ok = javac.getTask(
                        errors,
                        null,
                        null,
                        List.of(
                                "-proc:none",
                                "-d",
                                out.toString(),
                                "-classpath",
                                System.getProperty("java.class.path"),
                                "-Xlint:none"),
                        null,
                        units)
                .call();
        assertThat(ok)
                .as("README.md's Java blocks compile; javac said:%n%s", errors)
                .isTrue();
    }

    /** One block as a class: imports, then the declarations, then the statements in a method. */
    static JavaFileObject unit(String name, String block) {
        StringBuilder imports = new StringBuilder();
        StringBuilder members = new StringBuilder();
        StringBuilder statements = new StringBuilder();
        int depth = 0;
        boolean inDeclaration = false;
        for (String line : block.split("\n")) {
            if (depth == 0 && !inDeclaration) {
                if (line.startsWith("import ")) {
                    imports.append(line).append('\n');
                    continue;
                }
                inDeclaration = DECLARATION.matcher(line).matches();
            }
            (inDeclaration ? members : statements).append(line).append('\n');
            for (char c : line.replaceAll("\"([^\"\\\\]|\\\\.)*\"", "")
                    .replaceAll("//.*", "")
                    .toCharArray()) {
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            if (depth == 0 && inDeclaration && !line.startsWith("@")) {
                inDeclaration = !line.trim().endsWith("}")
                        && !line.trim().endsWith(";")
                        && DECLARATION.matcher(line).matches()
                        && !line.contains("{");
            }
        }
        String source = "package readme;\n" + imports
                + "public class " + name + " extends " + Givens.class.getCanonicalName() + " {\n" + members
                + "void run() throws Exception {\n" + statements + "}\n}\n";
        return new SimpleJavaFileObject(URI.create("string:///readme/" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
    }
}
