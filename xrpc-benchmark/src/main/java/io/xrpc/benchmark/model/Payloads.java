package io.xrpc.benchmark.model;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/** The benchmark payloads, built the same way for every serializer and contender. */
public final class Payloads {
    private Payloads() {}

    /** The seed article's response: a UUID request id, code 200, "ok", a short unicode string. */
    public static Response response() {
        Response r = new Response();
        r.requestId = "2f1a6c1e-9f3b-4c57-9d3e-6a8f1b2c3d4e";
        r.code = 200;
        r.message = "ok";
        r.data = "我是结果，我是结果，我是结果";
        return r;
    }

    public static User user(long id) {
        User u = new User();
        u.id = id;
        u.name = "Doug Lea";
        u.sex = 1;
        u.birthday = LocalDate.of(1968, 12, 8);
        u.email = "dong.lea@gmail.com";
        u.mobile = "18612345678";
        u.address = "北京市 中关村 中关村大街1号 鼎好大厦 1605";
        u.icon = "https://www.baidu.com/img/bd_logo1.png";
        u.status = 1;
        u.createTime = LocalDateTime.of(2026, 11, 22, 10, 0);
        u.updateTime = u.createTime;
        List<Integer> permissions = new ArrayList<>(15);
        for (int p : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 19, 88, 86, 89, 90, 91, 92}) {
            permissions.add(p);
        }
        u.permissions = permissions;
        return u;
    }

    public static Page<User> page(int pageNo) {
        Page<User> page = new Page<>();
        page.pageNo = pageNo;
        page.total = 1000;
        page.result = new ArrayList<>(15);
        for (int i = 0; i < 15; i++) {
            page.result.add(user(i));
        }
        return page;
    }

    /** A payload by name: {@code response}, {@code user} or {@code page}. */
    public static Object byName(String name) {
        return switch (name) {
            case "response" -> response();
            case "user" -> user(1);
            case "page" -> page(1);
            default -> throw new IllegalArgumentException("payload: " + name + " (expected: response, user, page)");
        };
    }
}
