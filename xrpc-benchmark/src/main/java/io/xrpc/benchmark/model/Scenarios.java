package io.xrpc.benchmark.model;

import io.xrpc.serialize.ClassAllowList;
import java.util.List;

/** The four rpc-benchmark scenarios as calls on any {@link UserService}, each checking its answer. */
public final class Scenarios {
    public static final List<String> ALL = List.of("existUser", "createUser", "getUser", "listUser");

    private Scenarios() {}

    /** One call of the scenario through {@code service}; throws on a wrong answer. */
    public static Runnable call(UserService service, String scenario) {
        User user = Payloads.user(1);
        return switch (scenario) {
            case "existUser" -> () -> check(service.existUser("dong.lea@gmail.com"));
            case "createUser" -> () -> check(service.createUser(user));
            case "getUser" -> () -> check(service.getUser(1) != null);
            case "listUser" -> () -> check(service.listUser(1).result.size() == 15);
            default -> throw new IllegalArgumentException("scenario: " + scenario + " (expected one of " + ALL + ")");
        };
    }

    public static void check(boolean ok) {
        if (!ok) {
            throw new IllegalStateException("wrong answer");
        }
    }

    /** What the benchmark's serializers may construct: the JDK defaults and this package. */
    public static ClassAllowList allowList() {
        return ClassAllowList.withDefaults().allowPackage(Scenarios.class.getPackageName());
    }
}
